package game

// MaxBots is the most bots one match runs. With the player's tank that makes 512
// tanks, the scoreboard's limit (wire.MaxScoreLines): a map made for that many
// (assets/maps/expanse: 2 km, 32 spawn places) gives every one of them a place;
// on a small map the later ones spawn on the rings around the pads and crowd it.
const MaxBots = 511
