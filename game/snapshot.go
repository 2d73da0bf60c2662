package game

import (
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/units"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
)

// Snapshot is everything the renderer needs to draw one frame. Match.Snapshot fills
// one each frame, reusing its slices; the renderer only reads it and never advances
// the simulation. A Snapshot owns its data: later Steps do not change it.
type Snapshot struct {
	// Time is the match time in seconds: the local clock of the last Step.
	Time float64
	// Tanks lists every tank in the match, local and remote, in the order they
	// entered it.
	Tanks []TankView
	// Known holds, at the index of each of Tanks, that tank's last-known state and
	// its projection to now. It is empty when the match was told not to fill them
	// (ViewDetail.NoProjection).
	Known []Known
	// Self is the index in Tanks of the player's own tank, or -1 when there is none.
	Self int
	// Observing reports that the player watches as an observer, with no tank;
	// Observers is the host's count of the observers watching the match.
	Observing bool
	Observers int
	// Stall says why the player's tank, driven, has not moved for a while: too
	// steep, or blocked (Stall.Hint says it to the player).
	Stall Stall
	// Algorithm is the dead-reckoning algorithm remote tanks use now.
	Algorithm deadreckon.Algorithm
	// Clamp is the ground clamp mode remote tanks use now.
	Clamp deadreckon.ClampMode
	// LatencyCompensation reports that remote tanks are projected from their owners'
	// timestamps rather than from the updates' arrival.
	LatencyCompensation bool
	// Heartbeat is how often a remote tank is heard from at the least, s, and
	// StaleAfter how long it may go unheard before it is shown stale, s: the rule
	// TankView.Stale follows, for the labels that show a tank's update age.
	Heartbeat, StaleAfter float64
	// Modes counts the remote tanks in each priority mode (deadreckon.Mode), for
	// the HUD.
	Modes [deadreckon.NumModes]int
	// Net holds this peer's connection figures for the HUD.
	Net NetStats
	// Notices are the match's recent notices (chat, joins, leaves, timeouts, kills),
	// oldest first, at most MaxNotices.
	Notices []Notice
	// Departures lists the remote tanks that left the match in the last
	// DepartureShown seconds, oldest first, for the client's notice feed.
	Departures []Departure
	// Combat holds shells, effects, the player's health and gun, the scoreboard and
	// the hits overlay.
	Combat CombatView
	// Ghosts are extra poses to draw beside tanks: a replay's second algorithm and the
	// tanks' true poses (package replay). A live match has none.
	Ghosts []Ghost
}

// GhostKind says what a Ghost shows.
type GhostKind uint8

const (
	// GhostAlt is a tank as a second dead-reckoning algorithm shows it (a replay's
	// A/B mode).
	GhostAlt GhostKind = iota + 1
	// GhostTruth is a tank where its own physics had it: the ground truth.
	GhostTruth
	// GhostRebuilt is a tank's hull as the host rebuilt the shooter's view when it
	// judged a hit (a replay's kill camera).
	GhostRebuilt
)

// Ghost is one extra pose of a tank, drawn as a wireframe tank joined to it by a line.
type Ghost struct {
	// Kind says what the ghost shows; Of is the tank's actor id.
	Kind GhostKind
	Of   uint32
	// Position and Orientation are the ghost's pose, world frame; Turret and Gun its
	// joints, rad.
	Position    mgl64.Vec3
	Orientation mgl64.Quat
	Turret, Gun float64
	// Error is the distance from the tank as shown to the ghost, m.
	Error float64
}

// TankView is one tank as the renderer draws it, with the dead-reckoning details the
// debug overlays show. Angles are radians; positions meters, world frame.
type TankView struct {
	// ID is the tank's actor id, unique in the match.
	ID uint32
	// Name is the owning player's (or bot's) name, drawn above the tank.
	Name string
	// Team picks the tank's colour; TeamDIS marks an entity of another simulation.
	Team int
	// Local reports whether this peer simulates the tank (player or own bot).
	Local bool
	// Stale reports that the tank has not been heard from for too long: Snapshot's
	// StaleAfter.
	Stale bool
	// Mode is a remote tank's priority mode: high near the camera or in view, low
	// far from it (see HighModeDistance); a local tank's is high.
	Mode deadreckon.Mode
	// Position and Orientation are the displayed (reckoned and clamped) pose.
	Position    mgl64.Vec3
	Orientation mgl64.Quat
	// Turret is the turret yaw relative to the hull; Gun is the gun elevation.
	Turret, Gun float64
	// Velocity and Acceleration are the displayed motion, for the arrow overlay.
	Velocity, Acceleration mgl64.Vec3

	// ClampHits are where the clamp rays met the ground; valid when Clamped.
	ClampHits [3]mgl64.Vec3
	// NumClampHits is how many of ClampHits are valid: 3 near the observer, 1 for a
	// distant tank clamped with a single ray, 0 on frames that reused the last clamp.
	NumClampHits int
	// GroundNormal is the normal of the clamp triangle.
	GroundNormal mgl64.Vec3
	// Clamped reports that ground clamping ran for this tank this frame.
	Clamped bool
	// Trail holds recent displayed positions, oldest first.
	Trail []mgl64.Vec3
	// UpdateAge is the time in seconds since the last update arrived (for a local
	// tank: since it last published).
	UpdateAge float64
	// Error is the distance in meters between the displayed position and the
	// last-known projection (Known.LastKnownProjected).
	Error float64
	// Health and MaxHealth are the tank's hit points as the host last said (zero
	// without combat); Wreck reports a destroyed tank waiting to respawn.
	Health, MaxHealth float64
	Wreck             bool
	// Protected reports a tank under spawn protection, as the host's referee decides
	// it (combat.Rules.Protected): shells do it no harm, and every peer shows it.
	Protected bool
}

// Known is one tank's last-known state and that state projected to now, as the
// ghost overlay draws them. It is kept apart from TankView, in Snapshot.Known, because
// its two states are more than half of a view's bytes, and only that overlay reads
// them: a client that draws no ghost asks for none (ViewDetail.NoProjection), and a
// battle's every view, copied each frame, is then a third of the size.
type Known struct {
	// LastKnown is the last state received from the owner. For a local tank it is
	// the last state this peer published.
	LastKnown deadreckon.State
	// LastKnownProjected is LastKnown projected to now: the ghost tank. For a local
	// tank it is what remote peers reckon from its last update (the publisher's own
	// reckoning), so TankView.Error shows how far they are off.
	LastKnownProjected deadreckon.State
}

// KnownOf returns Tanks[i]'s entry in Known, or nil when Known was not filled.
func (s *Snapshot) KnownOf(i int) *Known {
	if i < 0 || i >= len(s.Known) {
		return nil
	}
	return &s.Known[i]
}

// TeamDIS is the team of a DIS entity: another simulation's, brought into the match
// by the host's DIS gateway, shown apart and not refereed (net/wire.TeamDIS).
const TeamDIS = wire.TeamDIS

// DIS reports whether the tank is a DIS entity (TeamDIS).
func (t *TankView) DIS() bool { return t.Team == TeamDIS }

// NetStats are one peer's connection figures, for the HUD, in seconds: net.Stats
// (netStatsOf) plus what the match itself counts.
type NetStats struct {
	// RTT is the round trip to the host in seconds; ClockOffset is host minus local clock.
	RTT, ClockOffset float64
	// ClockError is how far ClockOffset may be off as the clock sync estimates it,
	// seconds: the figure that says how well the clocks agree.
	ClockError float64
	// Silence is how long nothing has arrived from the host and Timeout the silence
	// after which the link gives up, seconds (both 0 when this peer is the host).
	Silence, Timeout float64
	// BytesIn and BytesOut are bytes per second each way.
	BytesIn, BytesOut float64
	// UpdatesIn and UpdatesOut are state updates per second each way.
	UpdatesIn, UpdatesOut float64
	// Dropped counts updates dropped as late, duplicate or for an unknown tank, and
	// progress along a route that had not arrived.
	Dropped uint64
	// Malformed counts received messages that did not decode.
	Malformed uint64
	// Refused counts remote spawns and updates the match refused (non-finite or
	// absurd states).
	Refused uint64
	// SendErrors counts this peer's publishes and spawns that failed.
	SendErrors uint64
	// ClockRejected counts clock samples the sync refused.
	ClockRejected uint64
	// ProxyRefused counts moves of remote tanks' physics stand-ins that the physics
	// refused.
	ProxyRefused uint64
	// Lag, Jitter (seconds) and Loss (0..1) describe the impairment on this link.
	Lag, Jitter, Loss float64
}

// netStatsOf converts the link's figures to the HUD's: durations to seconds, and
// net's rejected messages as Malformed. The counts only the match keeps (Refused,
// ProxyRefused, the impairment) stay zero; Match.Snapshot adds them.
func netStatsOf(st net.Stats) NetStats {
	return NetStats{
		RTT: units.Seconds(st.RTT), ClockOffset: units.Seconds(st.ClockOffset), ClockError: units.Seconds(st.ClockError),
		Silence: units.Seconds(st.Silence), Timeout: units.Seconds(st.Timeout),
		BytesIn: st.BytesIn, BytesOut: st.BytesOut,
		UpdatesIn: st.UpdatesIn, UpdatesOut: st.UpdatesOut,
		Dropped:       st.Dropped,
		Malformed:     st.Rejected,
		SendErrors:    st.SendErrors,
		ClockRejected: st.ClockRejected,
	}
}
