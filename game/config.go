package game

import (
	"log/slog"
	"math"
	"reflect"

	tankspec "github.com/treadline/treadline/tank"

	"github.com/treadline/treadline/bot"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/terrain"
)

// Defaults for Config.
const (
	// DefaultName is the player's name when Config.Name is empty.
	DefaultName = "player"
	// DefaultMaxStep is the longest simulated time one Step advances, s. A longer gap
	// between Steps (a stalled window, a debugger, a host too loaded to keep up) is
	// simulated as this much, but a tank in the air falls through all of it: its
	// states are stamped on the clock, and the host holds its fall to gravity on it.
	DefaultMaxStep = 0.1
	// DefaultTrailLength is how many displayed positions each tank's trail keeps.
	DefaultTrailLength = 96
	// DefaultTrailInterval is the time between two trail samples, s (96 samples at
	// 1/24 s make a 4 s trail).
	DefaultTrailInterval = 1.0 / 24
	// DefaultRemoveAfter is how long a silent remote tank stays in the match, s, before
	// the match drops it itself, while its host relays every update to every player
	// (Config.RemoveAfter). The host drops a silent player's tanks sooner
	// (net.DefaultTimeout); both come after the tank is shown stale
	// (DeadReckoning().Reckon.StaleAfter()).
	DefaultRemoveAfter = 15.0
)

// RespawnBelow is the depth under the map's lowest point, m, below which a local tank
// is respawned (it fell through or off the world). A local tank that stays upside down
// for RespawnUpsideDown seconds is respawned too.
const RespawnBelow = 20.0

// RespawnUpsideDown is how long a local tank may stay on its side or upside down
// before it is respawned, s.
const RespawnUpsideDown = 3.0

// Off turns off the Config features whose fields say they may be Off: the trail. It
// is deadreckon.Off, which turns off the DeadReckoning features that may be off.
// Zero never means off: a zero field takes its default.
const Off = deadreckon.Off

// Config sets up a Match. The zero value is a match with a player tank, no bots, on a
// generated map, with default dead-reckoning settings.
type Config struct {
	// Map is the battlefield. If nil, NewMatch generates a map from Seed.
	Map *terrain.Map
	// NoPlayer leaves out the player's own tank (a headless host running only bots).
	NoPlayer bool
	// Observe makes the player an observer: no tank (as NoPlayer), its camera
	// (SetCamera, SetFollow) reported to the host, which must have admitted it as
	// one (net.ClientConfig.Observe).
	Observe bool
	// Name is the player's name. If empty, defaults to DefaultName.
	Name string
	// Team is the player's team (it picks the colour); 0 asks for none, and a host
	// that assigns teams (referee.AssignTeams) puts the player on one, which the match
	// then plays on and announces (NoticeTeam). Bots take teams 1 and 2 in turn.
	Team int
	// Bots is how many computer-driven tanks this match owns and publishes.
	Bots int
	// Patrol is the share of the bots (0 to 1) that patrol routes of their own
	// (bot.PatrolRoute) rather than roam between random waypoints: on a RouteLink
	// they publish their route once and then their progress along it while they
	// keep to it (RouteTolerance), a fraction of the bytes of state updates. Zero,
	// the default, patrols none.
	Patrol float64
	// Seed, with the link's player id, makes bots, spawn choices and publisher
	// heartbeats deterministic.
	Seed uint64

	// DeadReckoning is how local tanks publish and, in its Reckon field, how remote
	// tanks are reckoned and clamped (the publisher reckons its own updates the same
	// way). Each field left zero, field by field through the nested structs, takes
	// its value in DeadReckoning(), what the game ships: the zero value is the game's
	// dead reckoning, and setting one field changes that field alone. Where zero is
	// itself a choice of the reckoning mode (Reckon.Clamp.Mode ClampNone,
	// Reckon.CompensateLatency off), make it after NewMatch with SetClamp or
	// SetLatencyCompensation.
	DeadReckoning deadreckon.PublisherConfig

	// MaxStep caps the time one Step simulates, s. If zero, defaults to DefaultMaxStep.
	MaxStep float64
	// TrailLength is how many displayed positions each tank's trail keeps. If zero,
	// defaults to DefaultTrailLength; Off (or any negative) keeps no trail.
	TrailLength int
	// TrailInterval is the time between trail samples, s. If zero, defaults to
	// DefaultTrailInterval.
	TrailInterval float64
	// RemoveAfter is how long a silent remote tank is kept, s, in a match whose host
	// relays every update to every player; in one whose host rations each player's
	// downlink (Match.Zoned), ZonedSilence times as long. If zero, defaults to
	// DefaultRemoveAfter.
	RemoveAfter float64

	// Impairment describes the network impairment on this peer's link, shown in the
	// snapshot's NetStats. It changes nothing by itself.
	Impairment impair.Link
	// Logger receives the match's log lines. If nil, nothing is logged.
	Logger *slog.Logger

	// Rules are the rules of combat this peer expects (reload and wreck times); the
	// host's referee decides hits and damage. Zero fields take the defaults; NewMatch
	// returns an error for rules combat.Rules.WithDefaults refuses.
	Rules combat.Rules
	// Difficulty is how well this peer's bots shoot.
	Difficulty bot.Difficulty

	// Observer, when set, sees every tick's events, every published update and every
	// local tank's true pose, for recording the match. If nil, nothing is recorded.
	Observer Observer
}

// DeadReckoning returns the dead reckoning the game ships, in one value: how a local
// tank decides to publish and, in Reckon, how every remote tank is shown. The client
// (cmd/tanks), the headless host (cmd/tankhost), the match and drlab's "game"
// algorithm all run it, so the lab measures what players see. The figures were
// tuned in the lab; the measurements behind them are in docs/tuning.md.
func DeadReckoning() deadreckon.PublisherConfig {
	return deadreckon.PublisherConfig{
		Reckon: deadreckon.Config{
			Algorithm: deadreckon.ProjectiveVelocityBlend,
			// The link's clock sync turns owner timestamps into local time, so a
			// remote tank is shown where it is now, not one latency ago.
			CompensateLatency: true,
			// ΔT. A compensated blend spreads over ΔT plus the update's latency
			// (0.25 s at 150 ms): long enough to turn a correction into a curve,
			// short enough that the turn onsets of a zigzag are not shown late.
			UpdateInterval: 0.1,
			SnapDistance:   deadreckon.DefaultSnapDistance,
			// A gap (a stop dead seen 150 ms late, a lost update) closes at 7.5 m/s
			// on average, under 0.3 m per frame at the blend's fastest.
			CatchUpSpeed:        7.5,
			AccelerationHorizon: deadreckon.DefaultAccelerationHorizon,
			// A tank that falls silent drives on until it is stale, then comes to
			// rest: its starts and stops are published three times over, so a
			// silence seldom hides one.
			// The end of a turn is heard a latency late. A turn in place (slower
			// than 1 m/s) is shown at most 1° past the last heading heard, its
			// heading blended over 0.25 s: a pivot stopped dead at 120°/s went 24°
			// past its rest at 150 ms, 83° at 300 ms, and shows none now. A moving
			// tank's turn is not held back: holding its hull a latency behind
			// (LagTurns) or stopping its turn 0.5 s past a state
			// (MaxTurnExtrapolation) showed a tank driving a steady circle 2°–7°
			// off its way, and a lost turn's repair (LostOrientationThreshold)
			// delayed starts on a drive never tuned on (docs/lab.md, Turns).
			MaxTurnLead:        1 * math.Pi / 180,
			MaxTurnLeadSpeed:   1,
			TurnBlendTime:      0.25,
			MaxExtrapolation:   StaleHeartbeats * PublishHeartbeat,
			ExtrapolationDecay: deadreckon.DefaultExtrapolationDecay,
			// A parked tank is heard from every second. It is stale after 4.5 s
			// without a word: four heartbeats lost in a row, once in 10⁴ at 10%
			// loss (a parked tank wrongly marked stale once in three hours), and
			// still before the host's 6 s timeout removes a silent player's tanks.
			Heartbeat:       PublishHeartbeat,
			StaleHeartbeats: StaleHeartbeats,
			// Tanks never leave the ground; they rest on the hull's footprint.
			Clamp: deadreckon.Clamp{Mode: deadreckon.ClampAlways, Footprint: tankspec.Default().Footprint()},
			// The host's bounds: the publisher keeps inside them, and a remote
			// accepts what the host relays.
			Limits: deadreckon.Limits{
				MaxSpeed:            net.DefaultMaxSpeed,
				MaxAcceleration:     net.DefaultMaxAcceleration,
				MaxAngularSpeed:     net.DefaultMaxTurnRate,
				MaxArticulationRate: net.DefaultMaxArticulationRate,
			},
		},
		PositionThreshold: 0.03,
		// The threshold does not grow with the distance to the nearest other tank:
		// a player watches remote tanks through the chase camera, a spectator's
		// or a sight, from anywhere, and a grown threshold holds back the first
		// update of a start or a stop until the tank is that far off (0.78 m for
		// a tank 150 m from the next one). The host thins relays to far
		// observers instead (net.Thinning), and Budget bounds the rate.
		ToleranceLinear:      deadreckon.Off,
		OrientationThreshold: 4 * math.Pi / 180,
		MinInterval:          0.16,
		// Velocity over the last two frames: a physics contact's one-frame
		// jitter is not published as an acceleration spike.
		VelocityFrames:  2,
		Heartbeat:       PublishHeartbeat,
		AccelerationCap: PublishAccelerationCap,
		// A stop dead (3 m/s off the projection) goes out at once; every frame it
		// waited would be shown as 0.25 m driven on at 15 m/s.
		UrgentChange: 3,
		// Once the update before the last drifts 0.25 m from the truth, publish
		// again: a lost update is repaired within an interval or two, not at the
		// next heartbeat.
		LostThreshold: 0.25,
		// A brake, a coast that ends in a hard brake, or a burst of throttle
		// ending (the acceleration along the velocity 2 m/s² below the last
		// update's) goes out at once: from walking pace a tank is at rest within
		// half a second, before its braking trips the position threshold, and a
		// remote 300 ms away shows every frame of the wait as distance driven past
		// the stop. At 3 m/s² the end of a 2 m/s² burst of throttle was not an
		// onset, and a remote projected the burst on past the stop that followed.
		BrakeOnset: 2,
		// The end of a turn (the measured rotation 0.1 rad/s slower than the last
		// update's) goes out at once with the heading it comes to rest at and no
		// rotation, copied as a stop is: a remote that extrapolated the turn until
		// the next update showed it the latency's worth past its rest and back
		// (14° on the lab's turns at 150 ms), and a second past it when that
		// update was lost (90° on a pivot).
		TurnEnd: 0.1,
		// A slow turn easing off (the rate 30% below the last update's while it
		// slows at 0.1 rad/s² or more) ends too: a tank slowing for a waypoint
		// eases a 0.2 rad/s turn off over a second, and a remote turned on at the
		// last update's rate until the orientation threshold tripped (4.6° past
		// the rest on the lab's patrol at 150 ms, 14° at 300 ms).
		TurnEndShare: 0.3,
		// A gentle start (speeding up by less than 3 m/s²) is copied once more
		// 0.1 s after it: the link loses updates in runs, and a run that took a
		// start and its three copies a frame apart left it to the loss threshold,
		// a second later at 0.5 m/s². At 300 ms with 20% loss the gentle drives
		// tuned on miss the start goal in 2 runs of 220 against 6 (docs/lab.md,
		// Gentle starts, where drives generated after it show other causes).
		GentleStartCopy: 0.1,
		// A tank shown slower than 0.2 m/s, the speed at which a watcher sees a
		// tank move, that moves faster and speeds up goes out at once, copied as
		// a start: a creep easing up through it tripped the position threshold
		// half a second or more later.
		SeenSpeed: 0.2,
		// StartDebt stays off: letting a start and its copies borrow from a
		// spent budget cut the novice's kills on normal by a third over twenty
		// runs (docs/practice.md), for one late start fewer in 110 on drives
		// tuned on and none on drives never tuned on (docs/lab.md, Gentle
		// starts).
		// Updates per second on average, whatever the driving: the thresholds
		// stretch as the budget runs low.
		Budget: PublishBudget,
	}
}

// withGameReckoning returns pc with each field it leaves zero taken from
// DeadReckoning(), field by field through its nested structs (an array is one field).
func withGameReckoning(pc deadreckon.PublisherConfig) deadreckon.PublisherConfig {
	def := DeadReckoning()
	fillZero(reflect.ValueOf(&pc).Elem(), reflect.ValueOf(def))
	return pc
}

// fillZero sets each settable field of struct dst that is zero to def's, descending
// into struct fields.
func fillZero(dst, def reflect.Value) {
	for i := range dst.NumField() {
		f := dst.Field(i)
		switch {
		case !f.CanSet():
		case f.Kind() == reflect.Struct:
			fillZero(f, def.Field(i))
		case f.IsZero():
			f.Set(def.Field(i))
		}
	}
}

// StaleHeartbeats is how many heartbeats a remote tank may go unheard before it is
// shown stale.
const StaleHeartbeats = 4.5

// PublishBudget is how many updates per second a tank publishes on average, at most,
// on any path (about 210 B/s of uplink): the host rations what each observer is
// sent, so a tank's own uplink spends on accuracy. It is just under the 6.25 a
// second that MinInterval allows, so on every drive the lab has (4.6 a second at
// most) the thresholds decide what is sent, and only a flood of urgent updates
// feels the budget.
const PublishBudget = 6

// PublishHeartbeat is the longest time a tank goes without publishing, s.
const PublishHeartbeat = 1.0

// PublishAccelerationCap bounds a tank's published acceleration, m/s² (about 1.6 g):
// just above its hardest turn at speed (15.7 m/s² at 10 m/s and 90°/s), below a
// collision's or a hard brake's one-frame spike, which is not projected into a pop.
const PublishAccelerationCap = 16

// A patrolling bot keeps to its route, and publishes progress along it, while its
// tank is within RouteTolerance m of the route and faces along it within
// RouteHeadingTolerance rad; beyond either, or with a tank in sight, it publishes
// States, as any tank does. Its receivers show it on the route's line, facing along
// it, so the tolerances are the error that adds to what they show: a few tenths of a
// metre, as the lab's p95 error at 150 ms is, and one and a half times the game's
// orientation threshold (a tank steered along a bend lags the route's heading by a
// few degrees; at 4° it left its route twice as often, TestPatrolOverHost).
const (
	RouteTolerance        = 0.4
	RouteHeadingTolerance = 6 * math.Pi / 180
)
