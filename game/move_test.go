package game

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/assets/maps"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/referee"
	tankspec "github.com/treadline/treadline/tank"
)

// TestHonestBotsNeverRefused plays 64 tanks (eight peers of eight bots) on each shipped
// map through a restart, to afterPlaced past it (20 s of the clock, at most half a
// simulated minute; at most 20 s under the race detector) on the real host,
// refereed, with the host holding every update to what the tank can do on the map's
// ground, and asserts that the movement checks refuse not one honest update: the
// bots' collisions, pivots, stops, hills, ledges and respawns all pass. A round ends
// at 10 kills or after 12 s and its scoreboard shows for 5 s, so the run holds a
// restart on each map by 17 s at the latest, where every tank respawns at once. The
// host places the spawns it cannot take where asked; whether any is placed at a
// given restart depends on where the match's chance events left the tanks (the
// bots' updates, and with them every kill, change with any change to the
// publisher), so the referee is made to place the first eight spawns after the
// round's end that it places elsewhere as for an asked place that is taken
// (placingReferee): its own search chooses the place. A placed respawn's tank moves
// to the host's place from the spawn's answer, before its first update, so the host
// supersedes none of its updates (were the match to publish from where it asked,
// they would be superseded or refused), and the movement checks' tolerances the bots
// need (the turn's arrival jitter, the clamp's height) fail it when cut.
func TestHonestBotsNeverRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("20 s of 64 tanks on each map")
	}
	t.Parallel()
	const peers, bots, placed = 8, 8, 8
	seconds := 30
	if raceEnabled {
		seconds = 20
	}
	for _, name := range []string{"valley", "dunes"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			mp, err := maps.Library{}.Load(name)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := referee.New(mp, combat.Rules{WreckTime: 3, ScoreLimit: 10, TimeLimit: 12, ScoreboardTime: 5},
				DeadReckoning().Reckon)
			if err != nil {
				t.Fatal(err)
			}
			judge := &placingReferee{Referee: ref, taken: mgl64.Vec3{mp.Min()[0], 0, mp.Min()[1]}, force: placed}
			rig := newRig(t, gametest.Config{Seed: 5, Judge: judge, Mover: referee.NewMover(tankspec.Spec{}, mp.SurfaceAt),
				Link: impair.Link{Latency: 40 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02}})
			var ms []*Match
			for i := range peers {
				ms = append(ms, mustMatch(t, Config{Map: mp, NoPlayer: true, Bots: bots, Seed: uint64(i + 1)}, join(t, rig)))
			}
			// The match plays until the restart's spawns are placed and settled
			// (afterPlaced), at most the given seconds.
			placedAt, now := 0.0, 0.0
			for i := 1; i <= seconds*60 && (placedAt == 0 || now < placedAt+afterPlaced); i++ {
				now = float64(i) * tick
				rig.SetNow(now)
				for _, m := range ms {
					mustStep(t, m, now, physics.Input{})
				}
				if placedAt == 0 && judge.moved >= placed {
					placedAt = now
				}
			}
			st := rig.Host().Stats()
			t.Logf("%s: %d updates accepted, %d invalid (movement %+v), %d superseded, %d actors, %d rounds ended, %d spawns placed elsewhere after it (%d placed by the host in all), the last at %.2f s of %.2f s; verdicts %v",
				name, st.Accepted, st.Invalid, st.Moves, st.Superseded, st.Actors, ref.Rounds(), judge.moved, placedSpawns(ms), placedAt, now, ref.Counts().Verdicts)
			// A respawn the host placed elsewhere moves to the host's place before
			// its first update: none is sent from where it asked.
			if st.Invalid != 0 || st.Moves != (net.MoveRefusals{}) || st.Superseded != 0 {
				t.Errorf("honest updates refused: %d invalid, movement %+v, %d superseded", st.Invalid, st.Moves, st.Superseded)
			}
			if st.Accepted < uint64(now*peers*bots) {
				t.Errorf("only %d updates accepted: the bots hardly drove", st.Accepted)
			}
			if ref.Rounds() == 0 || judge.moved < placed {
				t.Fatalf("%d rounds ended, %d spawns placed elsewhere after the end, want %d: the run held no restart with spawns the host placed",
					ref.Rounds(), judge.moved, placed)
			}
		})
	}
}

// placingReferee is the host's referee but that it places spawns after a round's
// end as for an asked place that is taken, until force of them lie elsewhere: it asks the referee to
// place each as if its owner had asked for taken, a place outside the spawn area,
// so that the referee's own search (placeNear) chooses where, among the tanks
// respawning at once. moved counts the spawns so placed elsewhere than their owners
// asked, by more than the host's movement check lets a tank jump.
type placingReferee struct {
	*referee.Referee
	taken        mgl64.Vec3 // m
	force, moved int
}

func (r *placingReferee) Place(owner uint32, name string, team int, s deadreckon.State, at float64) (deadreckon.State, error) {
	if r.Rounds() == 0 || r.moved >= r.force {
		return r.Referee.Place(owner, name, team, s, at)
	}
	asked := s
	asked.Position = r.taken
	out, err := r.Referee.Place(owner, name, team, asked, at)
	if d := out.Position.Sub(s.Position); err == nil && math.Hypot(d[0], d[2]) > placedAway {
		r.moved++
	}
	return out, err
}

// placedAway is how far from where its owner asked a placingReferee's spawn must
// lie to count as placed elsewhere, m: past the jump the host's movement check
// refuses (2 m), so that the owner's updates from where it asked are refused at the
// host's place.
const placedAway = 3.0

// afterPlaced is how long, s, TestHonestBotsNeverRefused plays on after the last of
// the spawns its referee placed elsewhere: the restart's respawns, their first updates
// and their first collisions with the tanks around them reach the host's checks.
const afterPlaced = 3.0

// The host accepts accelerations up to the tank's (tank.Spec.Acceleration): the
// game's publisher must not publish harder ones.
func TestPublishedAccelerationWithinTheSpec(t *testing.T) {
	if c, a := DeadReckoning().AccelerationCap, tankspec.Default().Acceleration; c > a {
		t.Errorf("the publisher caps accelerations at %g m/s², above the tank's %g m/s² the host accepts", c, a)
	}
}

// TestFallOnALateHost drives the player's tank off valley's ledge (an 11 m cliff) on
// the real host, which holds every update on the map's ground or falling from it no
// slower than gravity, while the match's frames come late: a loaded host running 512
// bots stepped them 0.2–0.6 s apart, and a Step simulates at most MaxStep of that
// (0.1 s). Its states are stamped on the clock, so its fall must follow gravity on
// the clock too: the physics used to fall only through the simulated time, a slow
// fall the host refused ("3.2 m above a fall").
func TestFallOnALateHost(t *testing.T) {
	t.Parallel()
	mp, err := maps.Library{}.Load("valley")
	if err != nil {
		t.Fatal(err)
	}
	lm, ok := mp.Landmark("ledge")
	if !ok {
		t.Fatal(`valley has no "ledge" landmark`)
	}
	for _, late := range []float64{0, 0.25, 0.6} {
		t.Run(fmt.Sprintf("late=%gs", late), func(t *testing.T) {
			t.Parallel()
			rig := newRig(t, gametest.Config{Seed: 1, Mover: referee.NewMover(tankspec.Spec{}, mp.SurfaceAt)})
			m := mustMatch(t, Config{Map: mp, Seed: 1}, join(t, rig))
			now := tick
			rig.SetNow(now)
			mustStep(t, m, now, physics.Input{})
			m.moveLocal(m.self, lm.X, lm.Z, lm.Yaw)
			in := physics.Input{Throttle: 0.6, AimYaw: lm.Yaw}
			top, low := math.Inf(-1), math.Inf(1)
			var snap Snapshot
			for i := 1; i <= 720; i++ { // at least 12 s simulated
				now += tick
				if i%3 == 0 {
					now += late // every third frame comes late
				}
				rig.SetNow(now)
				mustStep(t, m, now, in)
				m.Snapshot(&snap)
				y := snap.Tanks[snap.Self].Position[1]
				top, low = math.Max(top, y), math.Min(low, y)
			}
			if top-low < 8 {
				t.Fatalf("the tank dropped %.1f m: never fell off the ledge", top-low)
			}
			st := rig.Host().Stats()
			if st.Invalid != 0 || st.Moves != (net.MoveRefusals{}) {
				t.Errorf("honest fall refused: %d invalid, movement %+v (of %d accepted)", st.Invalid, st.Moves, st.Accepted)
			}
		})
	}
}

// TestHonestBotsFallOnALateHost plays the bots of a host's own peer (63, as tankhost
// runs them, refereed by the default rules) on valley while every fourth frame comes
// 0.25 s late, as on a host too loaded to keep up with 512 bots, for a minute of the
// clock (20 s under the race detector), and asserts that the host refuses none of
// their updates: off the valley's cliffs the bots fall under gravity on the clock
// their states are stamped with, though each late frame simulates only MaxStep of it.
// Falling only through the simulated time, 6 of their updates were refused "above a
// fall" (7 and 4 with the bots of seeds 2 and 3).
func TestHonestBotsFallOnALateHost(t *testing.T) {
	if testing.Short() {
		t.Skip("a minute of 63 bots")
	}
	t.Parallel()
	const bots, late = 63, 0.25
	seconds := 60.0
	if raceEnabled {
		seconds = 20
	}
	mp, err := maps.Library{}.Load("valley")
	if err != nil {
		t.Fatal(err)
	}
	ref, err := referee.New(mp, combat.Rules{}, DeadReckoning().Reckon)
	if err != nil {
		t.Fatal(err)
	}
	rig := newRig(t, gametest.Config{Seed: 1, Judge: ref, Mover: referee.NewMover(tankspec.Spec{}, mp.SurfaceAt),
		Limits: net.Limits{MaxActorsPerPlayer: bots, ControlBurst: 2 * bots}})
	m := mustMatch(t, Config{Map: mp, NoPlayer: true, Bots: bots, Seed: 1}, rig.Host().Local())
	now := 0.0
	for i := 1; now < seconds; i++ {
		now += tick
		if i%4 == 0 {
			now += late
		}
		rig.SetNow(now)
		mustStep(t, m, now, physics.Input{})
	}
	st := rig.Host().Stats()
	t.Logf("%d updates accepted, %d invalid (movement %+v)", st.Accepted, st.Invalid, st.Moves)
	if st.Invalid != 0 || st.Moves != (net.MoveRefusals{}) {
		t.Errorf("honest updates refused: %d invalid, movement %+v", st.Invalid, st.Moves)
	}
	if st.Accepted < uint64(seconds*bots) {
		t.Errorf("only %d updates accepted: the bots hardly drove", st.Accepted)
	}
}
