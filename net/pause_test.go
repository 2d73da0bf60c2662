package net_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/poll"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/referee"
	"github.com/treadline/treadline/tank"
)

// TestHostFrozen stops the host's run loop for 25 s (Host.Pause: a stopped process,
// a long garbage collection pause, a virtual machine's stolen time) while an honest
// player drives its tank at 10 m/s and publishes at 10 Hz, and asserts that once the
// host runs again it refuses none of the player's updates, keeps the player, and
// accepts its drive from where the tank got meanwhile. The updates that waited
// through the stall arrive together and mostly too old to relay: they are dropped as
// late, never counted as invalid, as rate-limited or as a flood. A cheat's update
// that waited through the stall stamped with its start, to have a 100 m jump
// judged over the whole stall, is dropped with them.
func TestHostFrozen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const (
			step   = 100 * time.Millisecond
			speed  = 10.0 // m/s
			before = 50   // steps before the stall
			stall  = 250  // steps of the stall: 25 s
			after  = 50
			x0     = -200.0 // m: the drive ends at 150 m, inside the map
		)
		clk := &net.ManualClock{}
		h := net.SimHost(t, net.HostConfig{Clock: clk, Mover: referee.NewMover(tank.Spec{}, flatGround)})
		obs := net.PipeJoin(t, h, net.ClientConfig{Name: "observer", Clock: clk})
		driver := net.PipeJoin(t, h, net.ClientConfig{Name: "driver", Clock: clk})
		actor, err := driver.Spawn("driver", 1, net.TankAt(x0, 0))
		if err != nil {
			t.Fatal(err)
		}
		net.WaitFor(t, obs, 3*time.Second, func(ev net.Event) bool { return ev.Kind == net.EventSpawn && ev.Actor == actor })
		// A cheat stamps an update that waits through the stall with the stall's start,
		// to have its 100 m jump judged as if it had the whole stall to drive it.
		cheat := net.PipeJoin(t, h, net.ClientConfig{Name: "cheat", Clock: clk})
		jumper, err := cheat.Spawn("cheat", 2, net.TankAt(0, 100))
		if err != nil {
			t.Fatal(err)
		}
		start, seq := driver.HostNow(), uint16(0)
		send := func() {
			seq++
			s := net.TankAt(0, 0)
			s.Time = driver.HostNow()
			s.Position[0] = x0 + speed*(s.Time-start)
			s.Velocity = mgl64.Vec3{speed, 0, 0}
			if err := driver.SendRaw(net.RawBatch(t, wire.Update{Actor: wire.ActorID(actor), Seq: seq, State: s})); err != nil {
				st := h.Stats()
				t.Fatalf("update %d at %.1f s: %v (%d accepted, %d invalid, %d late, %d rate-limited, %d flood-kicked)",
					seq, s.Time, err, st.Accepted, st.Invalid, st.Late, st.RateLimited, st.FloodKicked)
			}
		}
		judged := func(st net.HostStats) uint64 { return st.Accepted + st.Invalid + st.Late + st.RateLimited }
		sendJudged := func() {
			before := judged(h.Stats())
			send()
			poll.Until(t, 2*time.Second, "update judged", func() bool { return judged(h.Stats()) > before })
		}
		for range before {
			clk.Advance(step)
			sendJudged()
		}
		players := h.Stats().Players
		h.Pause()
		froze := driver.HostNow()
		for i := range stall {
			if i == stall/2 {
				s := net.TankAt(100, 100)
				s.Time = froze
				if err := cheat.SendRaw(net.RawBatch(t, wire.Update{Actor: wire.ActorID(jumper), Seq: 1, State: s})); err != nil {
					t.Fatal(err)
				}
			}
			clk.Advance(step)
			send()
		}
		h.Resume()
		mid := h.Stats()
		for range after {
			clk.Advance(step)
			sendJudged()
		}
		st := h.Stats()
		t.Logf("after the stall: %d accepted, %d invalid (movement %+v), %d late, %d rate-limited, %d flood-kicked; then %d more accepted",
			mid.Accepted, mid.Invalid, mid.Moves, mid.Late, mid.RateLimited, mid.FloodKicked, st.Accepted-mid.Accepted)
		if st.Invalid != 0 || st.Moves != (net.MoveRefusals{}) || st.RateLimited != 0 || st.FloodKicked != 0 || st.TimedOut != 0 {
			t.Errorf("honest updates refused after a stall: %d invalid (movement %+v), %d rate-limited, %d flood-kicked, %d timed out",
				st.Invalid, st.Moves, st.RateLimited, st.FloodKicked, st.TimedOut)
		}
		if got := st.Accepted - mid.Accepted; got != after {
			t.Errorf("%d of the %d updates after the stall accepted", got, after)
		}
		for _, ev := range obs.Poll(nil) {
			if ev.Kind == net.EventState && ev.Actor == jumper {
				t.Errorf("the cheat's jump stamped with the stall's start was relayed: %.1f at %.2f s", ev.State.Position, ev.State.Time)
			}
		}
		if st.Players != players {
			t.Errorf("%d players after the stall, want %d", st.Players, players)
		}
	})
}
