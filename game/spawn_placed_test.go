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
	j := &placingJudge{at: mgl64.Vec3{x, y, z}}
	// Over a link with latency the player publishes from where it asked for a round
	// trip before it learns the place: those updates are superseded, not refused.
	rig := newRig(t, gametest.Config{Judge: j, Link: impair.Link{Latency: 100 * time.Millisecond}})
	m := mustMatch(t, Config{Map: mp, Name: "ada"}, join(t, rig))
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
	if st := rig.Host().Stats(); st.Invalid != 0 || st.Superseded == 0 {
		t.Errorf("%d updates refused as invalid and %d superseded, want none refused and the ones sent before the answer superseded", st.Invalid, st.Superseded)
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
// the host, holding every update to what the tank can turn, refuses none: the ones
// sent before the answer arrived are superseded, the later ones come from the host's
// place.
func TestRespawnTurnedByTheHost(t *testing.T) {
	mp := testmaps.Small(t)
	j := &turningJudge{turn: 1.5}
	rig := newRig(t, gametest.Config{Judge: j, Mover: referee.NewMover(tankspec.Spec{}, mp.SurfaceAt),
		Link: impair.Link{Latency: 100 * time.Millisecond}})
	m := mustMatch(t, Config{Map: mp, Name: "ada"}, join(t, rig))
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
	if st.Invalid != 0 || st.Moves != (net.MoveRefusals{}) || st.Superseded == 0 {
		t.Errorf("%d updates refused (movement %+v) and %d superseded, want none refused and the ones sent before the answer superseded",
			st.Invalid, st.Moves, st.Superseded)
	}
}
