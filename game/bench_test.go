package game

import (
	"fmt"
	"testing"
	"time"

	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/physics"
)

// benchMatches builds two peers over an in-memory link: one running bots local bots,
// the other a player reckoning them, warmed up for two simulated seconds.
func benchMatches(b *testing.B, bots int) (*gametest.Rig, *Match, *Match, float64) {
	mp := testmaps.Small(b)
	rig := newRig(b, gametest.Config{Link: impair.Link{Latency: 55 * time.Millisecond, Jitter: 5 * time.Millisecond}, Seed: 1})
	owner := mustMatch(b, Config{Map: mp, NoPlayer: true, Bots: bots, Seed: 1}, join(b, rig))
	viewer := mustMatch(b, Config{Map: mp, Seed: 2}, join(b, rig))
	return rig, owner, viewer, stepPeers(b, rig, owner, viewer, 0, 120)
}

// stepPeers steps the bots' peer owner and the player's peer player n ticks on from
// now, the player driving ahead, and returns the time they reached.
func stepPeers(tb testing.TB, rig *gametest.Rig, owner, player *Match, now float64, n int) float64 {
	for range n {
		now += tick
		rig.SetNow(now)
		mustStep(tb, owner, now, physics.Input{})
		mustStep(tb, player, now, physics.Input{Throttle: 1})
	}
	return now
}

// BenchmarkStep measures one tick of a peer reckoning n remote tanks (viewer) and of
// a peer simulating and publishing n bots (owner).
func BenchmarkStep(b *testing.B) {
	for _, n := range []int{8, 32} {
		b.Run(fmt.Sprintf("remote=%d", n), func(b *testing.B) {
			rig, owner, viewer, now := benchMatches(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				now += tick
				rig.SetNow(now)
				b.StopTimer()
				mustStep(b, owner, now, physics.Input{})
				b.StartTimer()
				mustStep(b, viewer, now, physics.Input{Throttle: 1})
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n+1), "ns/tank")
		})
		b.Run(fmt.Sprintf("bots=%d", n), func(b *testing.B) {
			rig, owner, _, now := benchMatches(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				now += tick
				rig.SetNow(now)
				mustStep(b, owner, now, physics.Input{})
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/tank")
		})
	}
}

// BenchmarkSnapshot measures filling a reused Snapshot with 33 tanks and their trails.
func BenchmarkSnapshot(b *testing.B) {
	_, _, viewer, _ := benchMatches(b, 32)
	var snap Snapshot
	viewer.Snapshot(&snap)
	b.ReportAllocs()
	for b.Loop() {
		viewer.Snapshot(&snap)
	}
	b.ReportMetric(float64(len(snap.Tanks)), "tanks")
}
