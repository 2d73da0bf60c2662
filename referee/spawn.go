package referee

import (
	"cmp"
	"errors"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/terrain"
)

// The referee places respawns.
var _ net.Placer = (*Referee)(nil)

// ErrWreck refuses the respawn of a player whose wreck time is not over.
var ErrWreck = errors.New("referee: a wreck respawns when its wreck time is over")

// ErrTeam refuses a spawn on another team than the one the player's first spawn of
// the match chose. A player who hopped teams by respawning could fight the team it
// had joined while its kills counted toward that team's score limit, and could spy
// for one side from the other.
var ErrTeam = errors.New("referee: a player's team is fixed until the next match")

// Teams is how many teams AssignTeams places players on: teams 1 to Teams, the ones
// a hosted match's bots take in turn.
const Teams = 2

// AssignTeams makes the referee place every player who asks for no team (team 0) on
// a team at its first spawn of a match (see Team). A hosted match calls it, so that
// a joining player has teammates and a side instead of being everyone's enemy; a
// referee without it keeps the teams players ask for. Call it before the host starts.
func (r *Referee) AssignTeams() { r.assign = true }

// Team implements net.Teamer. A player whose team is fixed for this match stays on
// it, whatever it asks (a respawn sent before it heard its team); a player who asks
// for no team, under AssignTeams, goes to the team of 1 to Teams with the fewest
// players in the match now (the lowest on a tie); any other ask stands (and Place
// refuses a team other than the fixed one, ErrTeam).
func (r *Referee) Team(owner uint32, name string, asked int) int {
	if p := r.players[playerKey{owner, name}]; p != nil && p.teamSet && asked == 0 {
		return p.team
	}
	if asked != 0 || !r.assign {
		return asked
	}
	var count [Teams + 1]int
	for _, p := range r.players {
		if p.teamSet && p.tanks > 0 && p.team >= 1 && p.team <= Teams {
			count[p.team]++
		}
	}
	best := 1
	for t := 2; t <= Teams; t++ {
		if count[t] < count[best] {
			best = t
		}
	}
	return best
}

// spawnSlack is how far beyond combat.SpawnReach of a pad a respawn may ask to be,
// m: the wire's quantization and a tank settling on its suspension.
const spawnSlack = 2.0

// Place implements net.Placer. Every tank enters where the match's spawn rule allows,
// its player's first as much as a respawn, so that no client picks where it starts
// (behind an enemy out in the field, or on a hill over the pads): in the spawn area
// (combat.InSpawnArea). A respawn (a player the referee knows) must also have at
// least combat.SpawnFairShare of the room from enemies the best pad has
// (combat.SpawnRoom, which counts where it was destroyed), and waits for the player's
// wreck time. Anywhere else, the referee puts it on the pad with the most room, or
// the first free place on the rings around it, facing the nearest enemy. A first
// spawn in the spawn area stays where asked: the players' matches pick a pad for it
// before they know where every enemy is, then move it by the full rule once they do
// (a respawn), so the host holding it to the room would move honest tanks at every
// match's start.
func (r *Referee) Place(owner uint32, name string, team int, s deadreckon.State, at float64) (deadreckon.State, error) {
	k := playerKey{owner, name}
	p := r.players[k]
	var died mgl64.Vec3
	hasDied := false
	if p != nil {
		if !p.alive && at-p.wreckAt < r.rules.WreckTime {
			return s, ErrWreck
		}
		if p.teamSet && p.team != team {
			return s, ErrTeam
		}
		died, hasDied = p.lastAt, p.hasLast
	}
	r.enemyAt = r.enemyAt[:0]
	r.tankAt = r.tankAt[:0]
	for id, t := range r.tanks {
		pos, ok := r.check.lastPosition(id)
		if !ok {
			continue
		}
		r.tankAt = append(r.tankAt, pos)
		if t.key != k && combat.Enemies(team, t.team) {
			r.enemyAt = append(r.enemyAt, pos)
		}
	}
	pads := combat.SpawnPads(r.check.terr)
	r.padRoom = r.padRoom[:0]
	best, bestRoom := 0, -1.0
	for i, c := range pads {
		room := combat.SpawnRoom(c, r.enemyAt, died, hasDied)
		r.padRoom = append(r.padRoom, room)
		if room > bestRoom {
			best, bestRoom = i, room
		}
	}
	asked := mgl64.Vec2{s.Position[0], s.Position[2]}
	if combat.InSpawnArea(r.check.terr, asked, spawnSlack) &&
		(p == nil || combat.SpawnRoom(asked, r.enemyAt, died, hasDied) >= combat.SpawnFairShare*bestRoom) {
		return r.onTheGround(s), nil
	}
	return r.placeNear(pads, best, s), nil
}

// onTheGround returns s held to the ground under it as every later update is (within
// clampBelow under and clampAbove over it): a spawn asked for above or below the
// ground enters on it, so that no tank hangs in the air, or under the map, for
// every observer to see.
func (r *Referee) onTheGround(s deadreckon.State) deadreckon.State {
	h, ok := r.check.terr.HeightAt(s.Position[0], s.Position[2])
	if !ok {
		return s
	}
	if y := s.Position[1]; !(y >= h-clampBelow && y <= h+clampAbove) {
		s.Position[1] = h
	}
	return s
}

// placeRingsPast is how many rings past combat.SpawnRings the referee searches around
// the pads when every place of the spawn area is taken: 511 tanks at a round's restart
// do not fit on valley's rings (about 350 places), and a tank put where another
// stands is pushed out of it at once, a jump the host's movement check refuses.
const placeRingsPast = 2 * combat.SpawnRings

// placeNear returns s moved to the best pad (pads[best]), or to the first place clear
// of every tank by combat.SpawnClearance: on the rings around that pad, then on the
// other pads and their rings (the roomiest pad first), then on rings past the spawn
// area (placeRingsPast). Where none is clear (a map full of tanks), it takes the place
// with the most room of those, never a pad a tank already stands on when another has
// more room. The tank stands on the ground facing the nearest enemy or the map's
// middle (combat.SpawnFacing), at rest.
func (r *Referee) placeNear(pads []mgl64.Vec2, best int, s deadreckon.State) deadreckon.State {
	m := r.check.terr
	r.grid.build(m, r.tankAt)
	r.padOrder = append(r.padOrder[:0], best)
	for i := range pads {
		if i != best {
			r.padOrder = append(r.padOrder, i)
		}
	}
	slices.SortStableFunc(r.padOrder[1:], func(a, b int) int { return cmp.Compare(r.padRoom[b], r.padRoom[a]) })
	c, most := pads[best], -1.0
	// try reports whether q is clear, and keeps the roomiest place tried.
	try := func(q mgl64.Vec2) bool {
		room := r.grid.room(r.tankAt, q, most)
		if room <= most || !r.clearOfRocks(q) {
			return false
		}
		c, most = q, room
		return room >= combat.SpawnClearance
	}
search:
	for _, pi := range r.padOrder {
		pad := pads[pi]
		if try(pad) {
			break search
		}
		for ring := 1; ring <= combat.SpawnRings; ring++ {
			for i := range 6 * ring {
				if q := combat.SpawnRingPlace(pad, ring, i, 0); combat.InSpawnArea(m, q, 0) && try(q) {
					break search
				}
			}
		}
	}
	if most < combat.SpawnClearance {
	past:
		for ring := combat.SpawnRings + 1; ring <= combat.SpawnRings+placeRingsPast; ring++ {
			for _, pi := range r.padOrder {
				for i := range 6 * ring {
					if q := combat.SpawnRingPlace(pads[pi], ring, i, 0); insideMargin(m, q) && try(q) {
						break past
					}
				}
			}
		}
	}
	h, _ := m.HeightAt(c[0], c[1])
	out := deadreckon.NewState(mgl64.Vec3{c[0], h, c[1]})
	out.Time = s.Time
	out.Orientation = geom.YawQuat(combat.SpawnFacing(m, c, r.enemyAt))
	out.NumArticulations = s.NumArticulations
	return out
}

// clearOfRocks reports whether a tank at c keeps combat.SpawnClearance/2 from every
// rock's edge.
func (r *Referee) clearOfRocks(c mgl64.Vec2) bool {
	for _, o := range r.check.terr.Obstacles() {
		if (mgl64.Vec2{o.X - c[0], o.Z - c[1]}).Len()-o.Radius < combat.SpawnClearance/2 {
			return false
		}
	}
	return true
}

// insideMargin reports whether c is combat.SpawnMargin inside m's border.
func insideMargin(m *terrain.Map, c mgl64.Vec2) bool {
	lo, hi := m.Min(), m.Max()
	in := combat.SpawnMargin
	return c[0] >= lo[0]+in && c[0] <= hi[0]-in && c[1] >= lo[1]+in && c[1] <= hi[1]-in
}

// tankGrid buckets tanks by cells combat.SpawnClearance wide over the map, so that
// placing a spawn among hundreds of tanks looks only at those near each place it
// tries.
type tankGrid struct {
	lo     mgl64.Vec2 // the map's corner, x and z, m
	nx, nz int32      // cells across
	first  []int32    // a cell's first tank, an index into the positions plus 1 (0: none)
	next   []int32    // the next tank in the same cell, likewise
}

// cell returns the index of the cell of x, z, m; a point off the map counts in the
// nearest cell at its edge.
func (g *tankGrid) cell(x, z float64) (i, j int32) {
	i = int32(min(max(math.Floor((x-g.lo[0])/combat.SpawnClearance), 0), float64(g.nx-1)))
	j = int32(min(max(math.Floor((z-g.lo[1])/combat.SpawnClearance), 0), float64(g.nz-1)))
	return i, j
}

// build buckets the positions at over m.
func (g *tankGrid) build(m *terrain.Map, at []mgl64.Vec3) {
	lo, hi := m.Min(), m.Max()
	g.lo = lo
	g.nx = int32(math.Ceil((hi[0]-lo[0])/combat.SpawnClearance)) + 1
	g.nz = int32(math.Ceil((hi[1]-lo[1])/combat.SpawnClearance)) + 1
	n := int(g.nx) * int(g.nz)
	if cap(g.first) < n {
		g.first = make([]int32, n)
	}
	g.first = g.first[:n]
	clear(g.first)
	g.next = g.next[:0]
	for k, p := range at {
		i, j := g.cell(p[0], p[2])
		c := int(j)*int(g.nx) + int(i)
		g.next = append(g.next, g.first[c])
		g.first[c] = int32(k + 1)
	}
}

// room returns the distance from c (x, z) to the nearest of the positions at (those
// build bucketed), m, capped at combat.SpawnClearance; once it is found to be at most
// beat, it returns a distance no more than beat without looking further.
func (g *tankGrid) room(at []mgl64.Vec3, c mgl64.Vec2, beat float64) float64 {
	room2 := combat.SpawnClearance * combat.SpawnClearance
	beat2 := beat * math.Abs(beat)
	ci, cj := g.cell(c[0], c[1])
	for j := max(cj-1, 0); j <= min(cj+1, g.nz-1); j++ {
		for i := max(ci-1, 0); i <= min(ci+1, g.nx-1); i++ {
			for k := g.first[int(j)*int(g.nx)+int(i)]; k != 0; k = g.next[k-1] {
				t := at[k-1]
				dx, dz := t[0]-c[0], t[2]-c[1]
				if d2 := dx*dx + dz*dz; d2 < room2 {
					room2 = d2
					if room2 <= beat2 {
						return math.Sqrt(room2)
					}
				}
			}
		}
	}
	return math.Sqrt(room2)
}

// lastPosition returns where actor was last reported, and whether the checker knows
// it.
func (h *Checker) lastPosition(actor uint32) (mgl64.Vec3, bool) {
	r := h.actors[actor]
	if r == nil || r.n == 0 {
		return mgl64.Vec3{}, false
	}
	return r.at(r.n - 1).s.Position, true
}
