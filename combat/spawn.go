package combat

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/terrain"
)

// The match's spawn rule: where a tank may (re)enter the match. The players' matches
// pick a place by it, and the host's referee holds a respawn to it.
const (
	// SpawnClearance is the distance between tank centres a spawn keeps, m: two hulls
	// 6.9 m long this far apart cannot touch, whatever their headings.
	SpawnClearance = 12.0
	// SpawnRings is how many rings of places around each spawn pad are tried when
	// every pad is taken; ring k holds 6k places SpawnClearance·k from the pad.
	SpawnRings = 5
	// SpawnReach is how far from a spawn pad a spawn may be, m: the outermost ring.
	SpawnReach = SpawnClearance * SpawnRings
	// SpawnSightRange is how far an enemy's view counts against a spawn place, m: a
	// gunner's range.
	SpawnSightRange = 220.0
	// SpawnDiedNear is the distance from where a tank was destroyed, m, within which
	// its respawn counts as the same spot and view again.
	SpawnDiedNear = 60.0
	// SpawnMargin is the map border a spawn place keeps, m.
	SpawnMargin = 16.0
)

// Respawn scoring: a place an enemy sees within SpawnSightRange counts as
// SpawnSeenPenalty times closer to the enemies; one within SpawnDiedNear of where the
// tank was destroyed as SpawnDiedPenalty times closer.
const (
	SpawnSeenPenalty = 0.25
	SpawnDiedPenalty = 0.02
)

// SpawnRingPlace returns place i of ring (1 to SpawnRings) around pad, x and z in
// meters: ring k holds 6k places SpawnClearance × k from the pad, evenly spaced from
// angle turn (rad). The players' matches and the host's referee search the same rings.
func SpawnRingPlace(pad mgl64.Vec2, ring, i int, turn float64) mgl64.Vec2 {
	a := turn + 2*math.Pi*float64(i)/float64(6*ring)
	r := SpawnClearance * float64(ring)
	return mgl64.Vec2{pad[0] + r*math.Cos(a), pad[1] + r*math.Sin(a)}
}

// SpawnPads returns the map's spawn pads, or its middle when it has none.
func SpawnPads(m *terrain.Map) []mgl64.Vec2 {
	if p := m.Spawns(); len(p) > 0 {
		return p
	}
	lo, hi := m.Min(), m.Max()
	return []mgl64.Vec2{{(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2}}
}

// SpawnFacing returns the yaw a tank spawning at c (x, z) on m faces, rad: toward the
// nearest of enemies, where the fight is, or toward the map's middle when there are
// none. The players' matches and the host's referee face spawns the same way.
func SpawnFacing(m *terrain.Map, c mgl64.Vec2, enemies []mgl64.Vec3) float64 {
	lo, hi := m.Min(), m.Max()
	to, best := mgl64.Vec2{(lo[0]+hi[0])/2 - c[0], (lo[1]+hi[1])/2 - c[1]}, math.Inf(1)
	for _, e := range enemies {
		d := mgl64.Vec2{e[0] - c[0], e[2] - c[1]}
		if l := d.Len(); l < best && l > 0 {
			to, best = d, l
		}
	}
	return geom.Heading(mgl64.Vec3{to[0], 0, to[1]})
}

// InSpawnArea reports whether c (x, z) is where the spawn rule may put a tank on m:
// within SpawnReach (plus slack, m) of a spawn pad and SpawnMargin inside the border.
func InSpawnArea(m *terrain.Map, c mgl64.Vec2, slack float64) bool {
	lo, hi := m.Min(), m.Max()
	if c[0] < lo[0]+SpawnMargin || c[0] > hi[0]-SpawnMargin || c[1] < lo[1]+SpawnMargin || c[1] > hi[1]-SpawnMargin {
		return false
	}
	for _, p := range SpawnPads(m) {
		if p.Sub(c).Len() <= SpawnReach+slack {
			return true
		}
	}
	return false
}

// SpawnRoom weighs place c for a respawn by distance alone: the distance to the
// nearest of enemies (positions), m (1e6 with none), times SpawnDiedPenalty when c is
// within SpawnDiedNear of died (if hasDied). Higher is safer. It costs no ray casts,
// so the host can weigh every respawn by it.
func SpawnRoom(c mgl64.Vec2, enemies []mgl64.Vec3, died mgl64.Vec3, hasDied bool) float64 {
	d := math.Inf(1)
	for _, e := range enemies {
		d = math.Min(d, mgl64.Vec2{e[0] - c[0], e[2] - c[1]}.Len())
	}
	if math.IsInf(d, 1) {
		d = 1e6
	}
	if hasDied && (mgl64.Vec2{died[0] - c[0], died[2] - c[1]}).Len() < SpawnDiedNear {
		d *= SpawnDiedPenalty
	}
	return d
}

// SpawnScore weighs place c on m for a respawn: SpawnRoom, times SpawnSeenPenalty
// when one of enemies sees c within SpawnSightRange. Higher is safer. A match picks
// the pad with the best score; since the penalty is at most SpawnSeenPenalty, that
// pad's SpawnRoom is at least SpawnSeenPenalty times any other pad's, which is what
// the host's referee holds a respawn to (SpawnFairShare).
func SpawnScore(m *terrain.Map, c mgl64.Vec2, enemies []mgl64.Vec3, died mgl64.Vec3, hasDied bool) float64 {
	d := SpawnRoom(c, enemies, died, hasDied)
	h, _ := m.HeightAt(c[0], c[1])
	at := mgl64.Vec3{c[0], h + 1.8, c[1]}
	for _, e := range enemies {
		eye := e.Add(mgl64.Vec3{0, 2.4, 0})
		to := at.Sub(eye)
		if l := to.Len(); l < SpawnSightRange {
			if _, hit := m.Raycast(eye, to, l); !hit {
				return d * SpawnSeenPenalty
			}
		}
	}
	return d
}

// SpawnFairShare is the least share of the best pad's SpawnRoom a respawn's place
// must have for the host to take it as asked: SpawnSeenPenalty, less a margin for
// the positions the host and the player see differing by the link's latency and for
// a place on the rings around a crowded pad.
const SpawnFairShare = 0.2
