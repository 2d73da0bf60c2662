package net

import (
	"fmt"
	"math"
	"runtime"
	"testing"
)

// BenchmarkHostPerUpdate measures the host's cost per accepted update, from the
// datagram's arrival to the relayed records in their batches (checks, relay or
// scheduling, the scheduler's ticks, the flushes), with n tanks driving at random
// and publishing 10 updates a second, one player each: on the shipped 512 m map
// and on a map that grows with the match (as many tanks per km² as 64 on 512 m),
// with the relay to everyone (Downlink -1) and with the default budget scheduled
// whatever the size (ZonesAbove -1). The tanks are more than the match limits allow
// a real host: the benchmark drives the match directly.
//
// Everything the host does for the updates is in the time, amortized over the
// updates accepted: the checks, the relay or the offers, the ticks' passes, the
// choices and the flushes; not the send loops' work (quic-go's). host-ns/update is
// wall time; host-cpu-ns/update (Linux) the benchmark thread's CPU time over the
// same sections, which a machine shared with other work does not inflate (one
// section per 2 ms step, whatever the match's size, so that the two reads of the
// thread's clock it holds, about 2.5 µs at load 20, weigh as little on 64 tanks'
// updates as on 512's; the garbage collector's background work is not in it).
// offers/update and ranked/update count the scheduler's work besides the records it
// sends (records/update): the offers of a tank to a player (at once, by the interest
// pass and by the whole-match pass) and the owed entries its choices ranked.
func BenchmarkHostPerUpdate(b *testing.B) {
	for _, n := range []int{64, 256, 512} {
		for _, spread := range []string{"512m", "dense64"} {
			extent := 256.0
			if spread == "dense64" {
				extent = 256 * math.Sqrt(float64(n)/64)
			}
			for _, mode := range []string{"relay", "zones"} {
				lim := Limits{Downlink: -1}
				if mode == "zones" {
					lim = zonedLimits(0)
				}
				b.Run(fmt.Sprintf("tanks=%d/map=%s/%s", n, spread, mode), func(b *testing.B) {
					runtime.LockOSThread() // for the thread's CPU time
					defer runtime.UnlockOSThread()
					s := newZoneSim(b, n, extent, lim, 1)
					for s.now < 2 {
						s.step(0.002)
					}
					s.timed = true
					acc0, rel0, bytes0 := s.h.m.stats.Accepted, s.h.m.stats.Relayed, s.h.m.stats.DownlinkBytes
					var offered0, ranked0 uint64
					if z := s.h.m.zones; z != nil {
						offered0, ranked0 = z.offered, z.ranked
					}
					steps := 0
					b.ResetTimer()
					for b.Loop() {
						s.step(0.002)
						steps++
					}
					st := s.h.m.stats
					acc := float64(st.Accepted - acc0)
					if acc == 0 {
						b.Fatal("no update accepted")
					}
					secs := float64(steps) * 0.002
					b.ReportMetric(float64(s.host.Nanoseconds())/acc, "host-ns/update")
					if s.cpuOK {
						b.ReportMetric(float64(s.hostCPU.Nanoseconds())/acc, "host-cpu-ns/update")
					}
					b.ReportMetric(float64(st.Relayed-rel0)/acc, "records/update")
					if mode == "zones" {
						b.ReportMetric(float64(st.DownlinkBytes-bytes0)/secs/float64(n)/1000, "kB/s/player")
						// The work that grows with the match besides the records:
						// offers of a tank to a player, and owed entries ranked by
						// the choices.
						z := s.h.m.zones
						b.ReportMetric(float64(z.offered-offered0)/acc, "offers/update")
						b.ReportMetric(float64(z.ranked-ranked0)/acc, "ranked/update")
					}
				})
			}
		}
	}
}
