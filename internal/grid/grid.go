// Package grid is a uniform grid over the ground plane: it finds the items near a
// point by looking only in the cells a query's circle overlaps, so that a
// neighbourhood query costs what the neighbourhood holds, not what the world holds.
//
//	g := grid.New[*tank](40)     // cells 40 m wide: at least the usual query radius
//	g.Move(t, x, z)              // on spawn and after every move
//	near = g.AppendNear(near[:0], x, z, 40)
//	g.Remove(t)                  // on despawn
//
// A Grid is not safe for concurrent use.
package grid

import "math"

// cell is a cell's column and row.
type cell struct{ i, j int32 }

// Grid holds items of type K at points of the ground plane (x, z), in square cells.
// The zero value is not usable; New makes one.
type Grid[K comparable] struct {
	size  float64
	cells map[cell][]K
	where map[K]cell
}

// New returns an empty grid of cells size meters wide. A query looks at the cells
// within its radius, so any size works; one near the usual query radius looks at
// nine cells. New panics if size is not positive and finite.
func New[K comparable](size float64) *Grid[K] {
	if !(size > 0) || math.IsInf(size, 0) {
		panic("grid: cell size must be positive and finite")
	}
	return &Grid[K]{size: size, cells: map[cell][]K{}, where: map[K]cell{}}
}

// Len returns how many items the grid holds.
func (g *Grid[K]) Len() int { return len(g.where) }

// cellOf returns the cell of point (x, z), clamped to the int32 range.
func (g *Grid[K]) cellOf(x, z float64) cell {
	return cell{Index(x, g.size), Index(z, g.size)}
}

// Index returns the column (or row) of coordinate v, m, in cells of size m:
// floor(v/size), clamped to the int32 range so that a wild coordinate does not wrap;
// NaN is 0.
func Index(v, size float64) int32 { return index(v / size) }

// index returns floor(v) clamped to the int32 range; NaN is 0.
func index(v float64) int32 {
	switch f := math.Floor(v); {
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	case f == f:
		return int32(f)
	}
	return 0
}

// Move puts k at (x, z): it adds k, or moves it there from where it was.
func (g *Grid[K]) Move(k K, x, z float64) {
	c := g.cellOf(x, z)
	if old, ok := g.where[k]; ok {
		if old == c {
			return
		}
		g.drop(k, old)
	}
	g.where[k] = c
	g.cells[c] = append(g.cells[c], k)
}

// Remove takes k out of the grid; a k it does not hold is ignored.
func (g *Grid[K]) Remove(k K) {
	if c, ok := g.where[k]; ok {
		g.drop(k, c)
		delete(g.where, k)
	}
}

// drop removes k from cell c's list, and the list when it empties.
func (g *Grid[K]) drop(k K, c cell) {
	l := g.cells[c]
	for i, x := range l {
		if x == k {
			l[i] = l[len(l)-1]
			var zero K
			l[len(l)-1] = zero
			l = l[:len(l)-1]
			break
		}
	}
	if len(l) == 0 {
		delete(g.cells, c)
	} else {
		g.cells[c] = l
	}
}

// AppendNear appends to buf every item in the cells that the circle of radius r
// about (x, z) overlaps, and returns it: every item within r, and some farther (the
// caller measures). Each item is appended once, in no particular order.
func (g *Grid[K]) AppendNear(buf []K, x, z, r float64) []K {
	r = math.Max(0, r)
	lo, hi := g.cellOf(x-r, z-r), g.cellOf(x+r, z+r)
	for i := int64(lo.i); i <= int64(hi.i); i++ {
		for j := int64(lo.j); j <= int64(hi.j); j++ {
			buf = append(buf, g.cells[cell{int32(i), int32(j)}]...)
		}
	}
	return buf
}
