package lab

import (
	"testing"

	"github.com/treadline/treadline/internal/units"
	"github.com/treadline/treadline/net/impair"
)

// BenchmarkSimulate measures one 60 s run of PVB on the zigzag at 60 fps over a lossy,
// jittery link, wire-encoded: the cost per frame and the allocations per run.
func BenchmarkSimulate(b *testing.B) {
	p, err := BuildScenario("zigzag", DefaultFPS, DefaultDuration)
	if err != nil {
		b.Fatal(err)
	}
	a, _ := ParseAlgo("pvb")
	s := Setup{Path: p, Algo: a, Publish: PublishConfig{Rate: 5}, Network: impair.Link{Latency: units.Duration(0.1), Jitter: units.Duration(0.03), Loss: 0.05}, Seed: 1}
	var sc scratch
	if _, err := sc.simulate(s); err != nil { // warm the buffers
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := sc.simulate(s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(p.Poses)), "ns/frame")
}

// BenchmarkMetricsAdd measures the per-frame cost of the metrics.
func BenchmarkMetricsAdd(b *testing.B) {
	truth := straight(3600)
	m := newMetrics(dt, ledgeGround{})
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i == len(truth) {
			m.Reset(dt, ledgeGround{})
			i = 0
		}
		p := truth[i]
		m.Add(p, stateAt(p), p.Position)
		i++
	}
}
