package game

// MaxBots is the most bots one match runs. With the player's tank that makes 64
// tanks: more crowd the map's spawn pads so that tanks appear inside each other, and
// the host's per-player actor limit and the relay's fan-out grow with every one.
const MaxBots = 63
