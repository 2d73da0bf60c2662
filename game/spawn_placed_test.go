package game

import (
	"math"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/referee"
	tankspec "github.com/treadline/treadline/tank"
)

// placingJudge is a judge that says nothing and puts every spawn after the first
// at one place, as the host's referee puts a respawn it does not take as asked.
type placingJudge struct {
	at     mgl64.Vec3
	spawns int
}

func (*placingJudge) Spawned(uint32, uint32, string, int, deadreckon.State, float64) {}
func (*placingJudge) Relayed(uint32, deadreckon.State, float64)                      {}
func (*placingJudge) Despawned(uint32, float64)                                      {}
func (*placingJudge) Message(uint32, wire.Message, float64, net.JudgeLink)           {}
func (*placingJudge) Tick(float64)                                                   {}
func (*placingJudge) Outbox(buf []net.JudgeMessage) []net.JudgeMessage               { return buf }

func (j *placingJudge) Place(_ uint32, _ string, _ int, s deadreckon.State, _ float64) (deadreckon.State, error) {
	j.spawns++
	if j.spawns == 1 {
		return s, nil
	}
	out := deadreckon.NewState(j.at)
	out.Time, out.NumArticulations = s.Time, s.NumArticulations
	out.Orientation = geom.YawQuat(1)
	return out, nil
}

// eventLink is a Link that says where the host put a spawn only in its EventSpawn
// (not a PlacingLink), as a peer that learns the place a frame or more after the
// host's answer.
type eventLink struct{ Link }

// placeLinks are the two ways a match learns where the host put its respawn: from the
// host's answer, before its tank's first update, or from the spawn's event, after
// updates from where it asked, which the host drops as superseded (want).
var placeLinks = []struct {
	name       string
	link       func(*gametest.Link) Link
	superseded bool
}{
	{"from the answer", func(l *gametest.Link) Link { return l }, false},
	{"from the event", func(l *gametest.Link) Link { return eventLink{l} }, true},
}

// TestRespawnWhereTheHostPuts: a respawn the host places elsewhere than the match
// asked moves the player's tank there, on its own screen and on everyone else's.
func TestRespawnWhereTheHostPuts(t *testing.T) {
	mp := testmaps.Small(t)
	pads := mp.Spawns()
	if len(pads) == 0 {
		t.Skip("the map has no spawn pads")
	}
	x, z := pads[len(pads)-1][0]+7, pads[len(pads)-1][1]-5
	y, _ := mp.HeightAt(x, z)
	for _, c := range placeLinks {
		t.Run(c.name, func(t *testing.T) {
			j := &placingJudge{at: mgl64.Vec3{x, y, z}}
			// Over a link with latency, a player that learns the place from the event
			// publishes from where it asked for a round trip: those updates are
			// superseded, not refused.
			rig := newRig(t, gametest.Config{Judge: j, Link: impair.Link{Latency: 100 * time.Millisecond}})
			m := mustMatch(t, Config{Map: mp, Name: "ada"}, c.link(join(t, rig)))
			other := mustMatch(t, Config{Map: mp, NoPlayer: true}, join(t, rig))
			step := func(now float64) {
				rig.SetNow(now)
				mustStep(t, m, now, physics.Input{})
				mustStep(t, other, now, physics.Input{})
			}
			now := tick
			step(now)
			m.Respawn()
			for range 120 {
				now += tick
				step(now)
			}
			var snap Snapshot
			m.Snapshot(&snap)
			self := snap.Tanks[snap.Self].Position
			if d := (mgl64.Vec2{self[0] - x, self[2] - z}).Len(); d > 1 {
				t.Errorf("the player's tank is at %v, %.1f m from where the host put it, %v", self, d, j.at)
			}
			other.Snapshot(&snap)
			for _, tv := range snap.Tanks {
				if d := (mgl64.Vec2{tv.Position[0] - x, tv.Position[2] - z}).Len(); d > 1 {
					t.Errorf("the other player sees %s at %v, %.1f m from where the host put it", tv.Name, tv.Position, d)
				}
			}
			if j.spawns < 2 {
				t.Errorf("%d spawns asked for, want the respawn", j.spawns)
			}
			if st := rig.Host().Stats(); st.Invalid != 0 || (st.Superseded != 0) != c.superseded {
				t.Errorf("%d updates refused as invalid and %d superseded, want none refused and superseded %v",
					st.Invalid, st.Superseded, c.superseded)
			}
		})
	}
}

// turningJudge puts every spawn after the first half a metre from where it was asked,
// facing turn radians away, as the host's referee can put a respawn on a ring place
// beside the one the match asked for, facing the nearest enemy.
type turningJudge struct {
	placingJudge
	turn, yaw float64 // the turn, and the heading of the last spawn placed, rad
}

func (j *turningJudge) Place(_ uint32, _ string, _ int, s deadreckon.State, _ float64) (deadreckon.State, error) {
	j.spawns++
	if j.spawns == 1 {
		return s, nil
	}
	out := s
	out.Position[0] += 0.5
	j.yaw = geom.WrapAngle(geom.Yaw(s.Orientation) + j.turn)
	out.Orientation = geom.YawQuat(j.yaw)
	return out, nil
}

// TestRespawnTurnedByTheHost: a respawn the host places within a metre of where the
// match asked but facing elsewhere turns the player's tank to the host's heading, and
// the host, holding every update to what the tank can turn, refuses none: a match
// that learns the place from the host's answer publishes from it alone, and one that
// learns it from the event has the ones it sent before superseded.
func TestRespawnTurnedByTheHost(t *testing.T) {
	mp := testmaps.Small(t)
	for _, c := range placeLinks {
		t.Run(c.name, func(t *testing.T) {
			j := &turningJudge{turn: 1.5}
			rig := newRig(t, gametest.Config{Judge: j, Mover: referee.NewMover(tankspec.Spec{}, mp.SurfaceAt),
				Link: impair.Link{Latency: 100 * time.Millisecond}})
			m := mustMatch(t, Config{Map: mp, Name: "ada"}, c.link(join(t, rig)))
			now := tick
			rig.SetNow(now)
			mustStep(t, m, now, physics.Input{})
			m.Respawn()
			var snap Snapshot
			for i := range 5 * 60 { // past the host's grace for updates from where it asked
				now += tick
				rig.SetNow(now)
				mustStep(t, m, now, physics.Input{})
				if i == 30 {
					m.Snapshot(&snap)
					if d := geom.WrapAngle(geom.Yaw(snap.Tanks[snap.Self].Orientation) - j.yaw); math.Abs(d) > 0.1 {
						t.Errorf("the player's tank faces %.2f rad off where the host turned it", d)
					}
				}
			}
			if j.spawns < 2 {
				t.Fatalf("%d spawns asked for, want the respawn", j.spawns)
			}
			st := rig.Host().Stats()
			if st.Invalid != 0 || st.Moves != (net.MoveRefusals{}) || (st.Superseded != 0) != c.superseded {
				t.Errorf("%d updates refused (movement %+v) and %d superseded, want none refused and superseded %v",
					st.Invalid, st.Moves, st.Superseded, c.superseded)
			}
		})
	}
}

// slowAnswerLink is a Link whose spawns, while slow is set, return cost seconds of
// the rig's clock after the host answered them.
type slowAnswerLink struct {
	*gametest.Link
	rig  *gametest.Rig
	cost float64
	slow bool
}

func (l *slowAnswerLink) SpawnPlaced(name string, team int, s deadreckon.State) (uint32, deadreckon.State, error) {
	id, placed, err := l.Link.SpawnPlaced(name, team, s)
	if l.slow {
		l.rig.SetNow(l.rig.Now() + l.cost)
	}
	return id, placed, err
}

// TestRespawnPlacedOnASlowAnswer: a respawn the host places half a metre from where
// the match asked and facing nearly the other way, whose tank publishes its first
// update 1.1 s after the host answered (a peer that respawns 511 tanks at a round's
// restart asks for them one answer at a time, and publishes them all after the last
// answer), turns the player's tank to the host's heading before that update, and the
// host refuses none. The match learned the place from the spawn's event, a frame
// after it published from where it asked: the host took that update (1.1 s is time
// enough to turn 3 rad from the host's heading), moved its anchor there, and refused
// the turn to the host's heading a frame later, "turned 3.00 rad".
func TestRespawnPlacedOnASlowAnswer(t *testing.T) {
	mp := testmaps.Small(t)
	for _, turn := range []float64{3.0, 1.5} {
		j := &turningJudge{turn: turn}
		rig := newRig(t, gametest.Config{Judge: j, Mover: referee.NewMover(tankspec.Spec{}, mp.SurfaceAt)})
		l := &slowAnswerLink{Link: join(t, rig), rig: rig, cost: 1.1}
		m := mustMatch(t, Config{Map: mp, Name: "ada"}, l)
		now := tick
		rig.SetNow(now)
		mustStep(t, m, now, physics.Input{})
		l.slow = true
		m.Respawn()
		mustStep(t, m, now+tick, physics.Input{})
		l.slow = false
		now = rig.Now()
		var snap Snapshot
		m.Snapshot(&snap)
		if d := geom.WrapAngle(geom.Yaw(snap.Tanks[snap.Self].Orientation) - j.yaw); math.Abs(d) > 0.1 {
			t.Errorf("turn %.1f: the player's tank faces %.2f rad off where the host turned it", turn, d)
		}
		for range 2 * 60 {
			now += tick
			rig.SetNow(now)
			mustStep(t, m, now, physics.Input{})
		}
		if j.spawns < 2 {
			t.Fatalf("turn %.1f: %d spawns asked for, want the respawn", turn, j.spawns)
		}
		st := rig.Host().Stats()
		if st.Invalid != 0 || st.Moves != (net.MoveRefusals{}) || st.Accepted < 3 {
			t.Errorf("turn %.1f: %d updates accepted, %d refused (movement %+v), want none refused", turn, st.Accepted, st.Invalid, st.Moves)
		}
	}
}
