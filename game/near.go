package game

import (
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/grid"
)

// Past largeMatch tanks, a tick finds a tank's neighbours (a bot's turret target, a
// publisher's nearest tank) in a grid of nearCell cells instead of scanning every
// tank: the scans grow with the square of the tanks. Both ways give the same answer.
//
// A publisher's nearest tank is looked up in the grid only when more than
// nearScanLocals tanks publish from this peer: filling the grid walks every tank,
// as one scan does, so for a player's peer with one tank in a crowd a scan is
// the cheaper of the two.
const (
	largeMatch     = 64
	nearCell       = 64.0 // m
	nearScanLocals = 4
)

// tankIndex is a grid of the tanks' shown positions, by index in Match.tanks, as of
// the last index call.
type tankIndex struct {
	g   *grid.Grid[int]
	n   int   // tanks indexed
	buf []int // reused query result
}

// index puts every tank of ts in the grid at its shown position, and reports whether
// the match is large enough to use it.
func (x *tankIndex) index(ts []*tank) bool {
	if len(ts) <= largeMatch {
		return false
	}
	if x.g == nil {
		x.g = grid.New[int](nearCell)
	}
	for i, t := range ts {
		x.g.Move(i, t.view.Position[0], t.view.Position[2])
	}
	for i := len(ts); i < x.n; i++ {
		x.g.Remove(i)
	}
	x.n = len(ts)
	return true
}

// near returns the indices of the tanks within r of p on the ground plane (and some
// farther), in Match.tanks order, in a buffer the next call reuses.
func (x *tankIndex) near(p mgl64.Vec3, r float64) []int {
	x.buf = x.g.AppendNear(x.buf[:0], p[0], p[2], r)
	slices.Sort(x.buf)
	return x.buf
}

// appendNear appends to buf the shown positions of the tanks a bot at p with sight r
// may notice: all of them in a small match, those within r on the ground plane (in
// Match.tanks order) in a large one.
func (m *Match) appendNear(buf []mgl64.Vec3, large bool, p mgl64.Vec3, r float64) []mgl64.Vec3 {
	if !large {
		return append(buf, m.aims...)
	}
	for _, i := range m.near.near(p, r) {
		buf = append(buf, m.aims[i])
	}
	return buf
}

// nearestIndexed returns the distance from p to the nearest tank other than t, as
// nearestOther does, looking in the index in ever wider circles: a tank nearer than
// the circle's radius is the nearest of all, whatever lies outside it.
func (m *Match) nearestIndexed(t *tank, p mgl64.Vec3) float64 {
	lo, hi := m.terr.Min(), m.terr.Max()
	reach := 2 * math.Hypot(hi[0]-lo[0], hi[1]-lo[1])
	for r := nearCell; r <= reach; r *= 2 {
		best := math.Inf(1)
		for _, i := range m.near.near(p, r) {
			if u := m.tanks[i]; u != t {
				best = math.Min(best, u.view.Position.Sub(p).Len())
			}
		}
		if best <= r {
			return best
		}
	}
	return m.nearestScan(t, p)
}
