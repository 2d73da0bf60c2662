package lab

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/referee"
	"github.com/treadline/treadline/tank"
)

// groundOf returns the height the host holds path's vehicle to: the first surface a
// ray down from high above hits, as the tanks' ground clamp casts it, or level ground
// at y = 0 for a path without terrain.
func groundOf(path *Path) func(x, z float64) (float64, bool) {
	if path.Ground == nil {
		return func(float64, float64) (float64, bool) { return 0, true }
	}
	return func(x, z float64) (float64, bool) { return path.Ground.RayDown(x, 1e6, z) }
}

// TestScenariosPassTheHost publishes each of the lab's scenarios with the game's own
// publisher (game.DeadReckoning) to the real host, which holds every update to what
// a tank can do on the path's ground, and asserts that not one update is refused:
// the cliff of "ledge", the dead stop of "collision", the turns in place of "pivot",
// the starts and stops of "stops", and the physics drives of "tank" and "wander".
// "respawn" is left out: the game respawns a tank as a new spawn, not as a jump.
func TestScenariosPassTheHost(t *testing.T) {
	if testing.Short() {
		t.Skip("a simulated minute of each scenario")
	}
	const fps, duration = 60, 60
	for _, c := range []struct {
		name   string
		jitter float64 // each update reaches the host up to this late, in order, s
	}{{"prompt", 0}, {"jittered", 0.08}} {
		for _, name := range ScenarioNames() {
			if name != "respawn" {
				t.Run(c.name+"/"+name, func(t *testing.T) { publishToHost(t, name, fps, duration, c.jitter) })
			}
		}
	}
}

// publishToHost publishes scenario name (fps frames per second for duration
// seconds) to a host on a manual clock, each update arriving up to jitter seconds
// late (in order, so that late ones bunch with the next), and asserts that the host
// accepts every one.
func publishToHost(t *testing.T, name string, fps, duration, jitter float64) {
	rng := rand.New(rand.NewPCG(7, 11))
	path, err := BuildScenario(name, fps, duration)
	if err != nil {
		t.Fatal(err)
	}
	rig, err := gametest.New(gametest.Config{Mover: referee.NewMover(tank.Spec{}, groundOf(path)), Extent: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer rig.Close()
	link, err := rig.Join()
	if err != nil {
		t.Fatal(err)
	}
	pub := deadreckon.NewPublisher(game.DeadReckoning(), 1)
	var (
		actor uint32
		sent  int
		queue []pending // published, on the way to the host
		due   float64   // when the last queued update arrives, s
	)
	for _, p := range path.Poses {
		rig.SetNow(p.Time)
		d, st := pub.Update(deadreckon.Sample{Time: link.Now(), Position: p.Position, Orientation: p.Orientation})
		if d != deadreckon.NoUpdate {
			due = math.Max(due, p.Time+jitter*rng.Float64())
			queue = append(queue, pending{due, st})
		}
		for len(queue) > 0 && queue[0].due <= p.Time {
			if actor == 0 {
				actor, err = link.Spawn("lab", 1, queue[0].st)
			} else {
				err = link.Publish(actor, queue[0].st)
			}
			if err != nil {
				t.Fatalf("%.3f s: %v", p.Time, err)
			}
			queue, sent = queue[1:], sent+1
		}
	}
	st := rig.Host().Stats()
	t.Logf("%s: %d updates sent, %d accepted, %d refused (movement %+v)", name, sent, st.Accepted, st.Invalid, st.Moves)
	if st.Invalid != 0 {
		t.Errorf("%d of %d honest updates refused (movement %+v)", st.Invalid, sent, st.Moves)
	}
	if want := uint64(math.Max(0, float64(sent-1))); st.Accepted != want {
		t.Errorf("%d updates accepted, want %d", st.Accepted, want)
	}
}

// pending is an update on its way to the host.
type pending struct {
	due float64 // arrival, s
	st  deadreckon.State
}
