package lab

import (
	"math"
	"testing"
)

// TestGentleStarts: a gentle drive of any seed is the same drive every time, starts
// from rest over and over, and opens no start much faster than the drive's 3 m/s²
// (the truth's speed gained over the first half second after it leaves rest; a
// slope adds its share).
func TestGentleStarts(t *testing.T) {
	for _, seed := range []string{"1", "2", "3"} {
		name := GentlePrefix + seed
		a, err := BuildScenario(name, DefaultFPS, 60)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := BuildScenario(name, DefaultFPS, 60)
		for i := range a.Poses {
			if a.Poses[i] != b.Poses[i] {
				t.Fatalf("%s: frame %d differs between two builds: %+v and %+v", name, i, a.Poses[i], b.Poses[i])
			}
		}
		dt := a.FrameInterval
		speed := func(i int) float64 {
			d := a.Poses[i].Position.Sub(a.Poses[i-1].Position)
			return math.Hypot(d[0], d[2]) / dt
		}
		starts, rest := 0, 0
		const half = 30 // frames: 0.5 s
		for i := 1; i+half < len(a.Poses); i++ {
			if speed(i) < restSpeed {
				rest++
				continue
			}
			if rest >= int(minRest/dt) {
				starts++
				if gain := speed(i+half) - speed(i); gain > gentleMaxAccel*0.5+0.3 {
					t.Errorf("%s: the start at %.2f s gains %.2f m/s in 0.5 s, want at most %.2f", name, a.Poses[i].Time, gain, gentleMaxAccel*0.5+0.3)
				}
			}
			rest = 0
		}
		if starts < 4 {
			t.Errorf("%s: %d starts from rest in 60 s, want 4 or more", name, starts)
		}
	}
}
