package net

import (
	"math"
	"testing"

	"github.com/treadline/treadline/net/wire"
)

// TestZonesFarCells runs a large match on a wide map with a budget that leaves far
// tanks waiting, and checks the far cells' bookkeeping and what they deliver: a
// player owes each far cell at most once, its pending list and its slots (of tanks
// and of cells) agree on where each entry sits, the far tanks a player ranks one by
// one are fewer than twice the cells it ranks, and every tank, however far, reaches
// every player within farFloorAge and a cycle of offers while it publishes.
func TestZonesFarCells(t *testing.T) {
	const (
		dt      = 0.002
		seconds = 16.0
		// maxFar is the longest a far tank may go unsent to a player: owed within
		// farCycle of its record, it goes ahead of the merely relevant past
		// farFloorAge, and then within a tick or two.
		maxFar = farFloorAge + farCycle + 3*downlinkTick
	)
	for _, c := range []struct {
		n        int
		extent   float64
		downlink int
		seed     uint64
	}{
		{256, 724, 16000, 5},
		{160, 900, 6000, 6},
	} {
		s := newZoneSim(t, c.n, c.extent, zonedLimits(c.downlink), c.seed)
		var cellEntries, farEntries, looks int
		worst := 0.0
		for s.now < seconds {
			s.step(dt)
			if math.Mod(s.now, 0.25) >= dt {
				continue
			}
			for _, q := range s.h.m.order {
				seen := map[int32]bool{}
				for i, o := range q.pending {
					if o.cell {
						if seen[o.zi] {
							t.Fatalf("n %d: player %d owes far cell %d twice", c.n, q.id, o.zi)
						}
						seen[o.zi] = true
						if cs := q.cslots[o.zi]; !cs.owed || int(cs.pi) != i {
							t.Fatalf("n %d: player %d's entry %d is cell %d, whose slot says owed %v at %d", c.n, q.id, i, o.zi, cs.owed, cs.pi)
						}
						if o.near || o.must || o.tie != cellTie+o.zi {
							t.Fatalf("n %d: player %d's cell entry %+v", c.n, q.id, o)
						}
						cellEntries++
						continue
					}
					if s := &q.slots[o.zi]; !s.owed || int(s.pi) != i {
						t.Fatalf("n %d: player %d's entry %d is slot %d, which says owed %v at %d", c.n, q.id, i, o.zi, s.owed, s.pi)
					}
					if !o.near {
						farEntries++
					}
				}
				for ci := range q.cslots {
					if cs := q.cslots[ci]; cs.owed && !seen[int32(ci)] {
						t.Fatalf("n %d: player %d's cell %d says owed, not in its pending list", c.n, q.id, ci)
					}
				}
				looks++
			}
			if s.now < 3 {
				continue // every player first learns of every tank
			}
			for _, o := range s.tanks {
				i := int(o.p.id)
				for _, a := range s.tanks {
					if o == a {
						continue
					}
					if gap := s.now - math.Max(3, s.recv[i][a.a.id]); gap > maxFar {
						t.Fatalf("n %d: tank %d %.0f m from player %d unsent for %.2f s at %.2f s",
							c.n, a.a.id, distance(o.a, a.a), i, gap, s.now)
					} else {
						worst = math.Max(worst, gap)
					}
				}
			}
		}
		cells, far := float64(cellEntries)/float64(looks), float64(farEntries)/float64(looks)
		if cells == 0 || far > 2*cells {
			t.Errorf("n %d: a player owes %.1f far cells and %.1f far tanks one by one on average", c.n, cells, far)
		}
		st := s.h.m.stats
		t.Logf("n %d on ±%.0f m, %d B/s: %d far cells; a player owes %.1f far cells and %.1f far tanks one by one; longest silence %.2f s; %d records sent",
			c.n, c.extent, c.downlink, len(s.h.m.zones.cells), cells, far, worst, st.Scheduled)
	}
}

// TestZonesCellFar checks the test of a far cell against a player's tanks and,
// tankless, its place.
func TestZonesCellFar(t *testing.T) {
	c := &farCellOf{i: 2, j: 0} // x in [400, 600), z in [0, 200)
	for _, tc := range []struct {
		x, z float64
		far  bool
	}{
		{0, 100, true},    // 400 m from the cell's west edge
		{99, 100, true},   // 301 m
		{101, 100, false}, // 299 m
		{500, 100, false}, // inside
		{500, -301, true}, // 301 m south of it
		{500, -299, false},
		{850, 450, true}, // 250 m east, 250 m north: 354 m from the corner
		{800, 400, false},
	} {
		q := &member{}
		q.place[0], q.place[2] = tc.x, tc.z
		if got := cellFar(q, c); got != tc.far {
			t.Errorf("place (%.0f, %.0f): far %v, want %v", tc.x, tc.z, got, tc.far)
		}
		a := &hostActor{id: wire.ActorID(1)}
		a.state.Position[0], a.state.Position[2] = tc.x, tc.z
		q.owned = []*hostActor{a}
		q.place[0] = 1e4 // a tank's place, not the member's, counts
		if got := cellFar(q, c); got != tc.far {
			t.Errorf("tank at (%.0f, %.0f): far %v, want %v", tc.x, tc.z, got, tc.far)
		}
	}
}
