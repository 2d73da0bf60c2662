package game

import (
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestRingKeepsTheLastSamplesOldestFirst fills rings of several sizes with fewer,
// as many and more samples than they hold, and with a reset between, and checks that
// appendTo gives the last samples, oldest first, after what dst already held.
func TestRingKeepsTheLastSamplesOldestFirst(t *testing.T) {
	for _, c := range []struct{ size, adds, resetAt int }{
		{0, 5, -1}, {1, 3, -1}, {4, 2, -1}, {4, 4, -1}, {4, 5, -1}, {4, 11, -1}, {96, 250, -1}, {5, 12, 7},
	} {
		r := newRing(c.size)
		var all []mgl64.Vec3
		for i := range c.adds {
			if i == c.resetAt {
				r.reset()
				all = all[:0]
			}
			p := mgl64.Vec3{float64(i), 0, -float64(i)}
			r.add(float64(i), p, 1)
			all = append(all, p)
		}
		want := []mgl64.Vec3{{-1, -1, -1}}
		want = append(want, all[max(0, len(all)-c.size):]...)
		if got := r.appendTo([]mgl64.Vec3{{-1, -1, -1}}); !slices.Equal(got, want) {
			t.Errorf("size %d, %d adds (reset at %d): got %v, want %v", c.size, c.adds, c.resetAt, got, want)
		}
	}
}
