package game

import (
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
