package combat

import (
	"time"

	"github.com/go-gl/mathgl/mgl64"
)

// EventKind says what a Event reports.
type EventKind uint8

// The combat events.
const (
	// EventFire: a tank fired Shot. Every peer computes the shell from it.
	EventFire EventKind = iota + 1
	// EventHit: the host confirmed that Shot struck Target at Local (hull frame),
	// doing Damage and leaving Health.
	EventHit
	// EventDestroy: Shot destroyed Target; its shooter scores a kill.
	EventDestroy
	// EventRefused: the host refused the shooter's claim that Shot hit Target, for
	// Reason.
	EventRefused
	// EventScores: the scoreboard changed (Scores), or the match ended (Over, next
	// match at Until) or restarted.
	EventScores
)

// Event is one combat message from the host (or, for CombatFire, a shooter as
// relayed by the host). Times are host-clock seconds.
type Event struct {
	Kind EventKind
	// Time is when the host decided it.
	Time float64
	// Shot is the shot fired, hitting or destroying.
	Shot Shot
	// Target is the actor hit, destroyed or claimed.
	Target uint32
	// Local is the impact point in the target's hull frame, m.
	Local mgl64.Vec3
	// Damage is the hit points the hit took; Health what the target has left.
	Damage, Health float64
	// Reason is why a claim was refused.
	Reason Reason
	// Rebuilt is the target's hull as the host rebuilt the shooter's view (hits and
	// refusals), for the hits overlay.
	Rebuilt HullPose
	// Over reports that the match has ended; the next starts at Until. Ends is when
	// the match in play ends at the latest (its time limit), +Inf without one.
	Over        bool
	Until, Ends float64
	// Scores is the scoreboard (CombatScores), best first.
	Scores []Score
}

// Score is one player's line on the scoreboard.
type Score struct {
	// Owner is the peer's player id; Name the player's or bot's name.
	Owner uint32
	Name  string
	// Team is the player's team (0: none).
	Team int
	// Kills and Deaths count this match's destroyed enemies and own losses.
	Kills, Deaths int
	// Hits and Shots count this match's damaging hits on enemies and shots fired.
	Hits, Shots int
	// Link says what the host knows of the line's link to it; RTT is the player's
	// round trip to the host when Link is LinkMeasured.
	Link Link
	RTT  time.Duration
}

// Link says what the host knows of a scoreboard line's link to it.
type Link uint8

// The links.
const (
	// LinkUnknown: the host said nothing (an older host, or not measured yet).
	LinkUnknown Link = iota
	// LinkMeasured: a player over the network; Score.RTT is its round trip.
	LinkMeasured
	// LinkHost: the host's own player, with no network between.
	LinkHost
	// LinkBot: a tank with no player of its own (a bot of the host's or of a
	// player's).
	LinkBot
)
