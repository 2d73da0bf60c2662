package game

import (
	"log/slog"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/terrain"
)

// Defaults for Config.
const (
	// DefaultName is the player's name when Config.Name is empty.
	DefaultName = "player"
	// DefaultClamp is the ground clamp mode remote tanks use unless told otherwise:
	// tanks never leave the ground.
	DefaultClamp = deadreckon.ClampAlways
	// DefaultMaxStep is the longest simulated time one Step advances, s. A longer gap
	// between Steps (a stalled window, a debugger) is simulated as this much.
	DefaultMaxStep = 0.1
	// DefaultTrailLength is how many displayed positions each tank's trail keeps.
	DefaultTrailLength = 96
	// DefaultTrailInterval is the time between two trail samples, s (96 samples at
	// 1/24 s make a 4 s trail).
	DefaultTrailInterval = 1.0 / 24
	// DefaultRemoveAfter is how long a silent remote tank stays in the match, s, before
	// the match drops it (it is shown as stale well before that).
	DefaultRemoveAfter = 15.0
)

// RespawnBelow is the depth under the map's lowest point, m, below which a local tank
// is respawned (it fell through or off the world). A local tank that stays upside down
// for RespawnUpsideDown seconds is respawned too.
const RespawnBelow = 20.0

// RespawnUpsideDown is how long a local tank may stay on its side or upside down
// before it is respawned, s.
const RespawnUpsideDown = 3.0

// Config sets up a Match. The zero value is a match with a player tank, no bots, on a
// generated map, with default dead-reckoning settings.
type Config struct {
	// Map is the battlefield. If nil, NewMatch generates a map from Seed.
	Map *terrain.Map
	// NoPlayer leaves out the player's own tank (a headless host running only bots).
	NoPlayer bool
	// Name is the player's name. If empty, defaults to DefaultName.
	Name string
	// Team is the player's team (it picks the colour). Bots take teams 1 and 2 in turn.
	Team int
	// Bots is how many computer-driven tanks this match owns and publishes.
	Bots int
	// Seed, with the link's player id, makes bots, spawn choices and publisher
	// heartbeats deterministic.
	Seed uint64

	// Algorithm is the dead-reckoning algorithm remote tanks use at the start
	// (the zero value is deadreckon.ProjectiveVelocityBlend).
	Algorithm deadreckon.Algorithm
	// Clamp is the ground clamp mode remote tanks use at the start. If zero
	// (ClampNone), defaults to DefaultClamp unless NoClamp is set.
	Clamp deadreckon.ClampMode
	// NoClamp starts remote tanks with ClampNone (their reckoned height, unclamped).
	NoClamp bool
	// NoLatencyCompensation starts remote tanks projected from each update's arrival
	// instead of from its owner's timestamp. By default the match compensates: the
	// link's clock sync turns owner timestamps into local time, so a remote tank is
	// shown where it is now rather than where it was one network latency ago.
	NoLatencyCompensation bool
	// Remote holds the other settings of remote actors (blend caps, snap distance,
	// heartbeat, clamp footprint…). Its Algorithm, Clamp.Mode and CompensateLatency
	// are replaced by Algorithm, Clamp and NoLatencyCompensation above. Zero means
	// deadreckon's defaults.
	Remote deadreckon.Config
	// Publisher holds the publishing thresholds and heartbeat of local tanks. Zero
	// means deadreckon's defaults.
	Publisher deadreckon.PublisherConfig

	// MaxStep caps the time one Step simulates, s. If zero, defaults to DefaultMaxStep.
	MaxStep float64
	// TrailLength is how many displayed positions each tank's trail keeps. If zero,
	// defaults to DefaultTrailLength; negative keeps no trail.
	TrailLength int
	// TrailInterval is the time between trail samples, s. If zero, defaults to
	// DefaultTrailInterval.
	TrailInterval float64
	// RemoveAfter is how long a silent remote tank is kept, s. If zero, defaults to
	// DefaultRemoveAfter.
	RemoveAfter float64

	// Impairment describes the network impairment on this peer's link, shown in the
	// snapshot's NetStats. It changes nothing by itself.
	Impairment impair.Link
	// Logger receives the match's log lines. If nil, nothing is logged.
	Logger *slog.Logger
}
