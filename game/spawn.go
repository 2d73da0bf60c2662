package game

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/terrain"
)

// steerLeft is the physics.Input.Steer sign that turns a tank left (positive yaw):
// physics steers right for positive values.
const steerLeft = -1

// spawnClearance is the distance from any tank a spawn position tries to keep, m.
const spawnClearance = 12.0

// spawnSpot picks where a local tank (re)appears: the spawn point farthest from every
// other tank (from every enemy, when a tank respawns in a match with combat), shifted
// by a few random meters, facing the map's middle.
func (m *Match) spawnSpot(skip *tank) (x, z, yaw float64) {
	spawns := m.terr.Spawns()
	var cands []mgl64.Vec2
	if len(spawns) > 0 {
		cands = spawns
	} else {
		lo, hi := m.terr.Min(), m.terr.Max()
		c := mgl64.Vec2{(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2}
		cands = []mgl64.Vec2{c}
	}
	best, bestD := cands[0], -1.0
	start := m.rng.IntN(len(cands))
	for k := range cands {
		c := cands[(start+k)%len(cands)]
		d := math.Inf(1)
		for _, t := range m.tanks {
			if t == skip || (skip != nil && m.combat != nil && !Enemies(skip.team, t.team)) {
				continue
			}
			p := t.view.Position
			if t.local && t.body != nil {
				p = t.body.Pose().Position
			}
			d = math.Min(d, mgl64.Vec2{p[0] - c[0], p[2] - c[1]}.Len())
		}
		if d > bestD {
			best, bestD = c, d
		}
		if math.IsInf(d, 1) {
			break
		}
	}
	x, z = best[0], best[1]
	if bestD < spawnClearance*4 {
		a := m.rng.Float64() * 2 * math.Pi
		r := spawnClearance * (1 + m.rng.Float64())
		x, z = x+r*math.Cos(a), z+r*math.Sin(a)
	}
	lo, hi := m.terr.Min(), m.terr.Max()
	x = math.Max(lo[0]+DefaultBotMargin/2, math.Min(hi[0]-DefaultBotMargin/2, x))
	z = math.Max(lo[1]+DefaultBotMargin/2, math.Min(hi[1]-DefaultBotMargin/2, z))
	mid := mgl64.Vec2{(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2}
	yaw = deadreckon.Heading(mgl64.Vec3{mid[0] - x, 0, mid[1] - z})
	return x, z, yaw
}

// spawnLocal adds a local tank to the physics world and announces it on the link.
func (m *Match) spawnLocal(name string, team int, bot *botDriver) (*tank, error) {
	x, z, yaw := m.spawnSpot(nil)
	body, err := m.world.AddTank(physics.TankSpec{}, x, z, yaw)
	if err != nil {
		return nil, fmt.Errorf("add tank: %w", err)
	}
	s := spawnState(m.terr, body, x, z, yaw)
	id, err := m.link.Spawn(name, team, s)
	if err != nil {
		m.world.RemoveTank(body)
		return nil, err
	}
	t := &tank{
		id: id, owner: m.link.ID(), name: name, team: team, local: true,
		body: body, bot: bot,
		pub:       deadreckon.NewPublisher(publisherConfig(m.dr), m.cfg.Seed^uint64(id)*0x2545f4914f6cdd1d),
		published: s,
		trail:     newRing(m.cfg.TrailLength),
	}
	t.view.Position, t.view.Orientation = s.Position, s.Orientation
	m.tanks = append(m.tanks, t)
	m.byID[id] = t
	m.log.Debug("local tank", "actor", id, "name", name, "x", x, "z", z)
	return t, nil
}

// spawnState is the state a freshly placed tank announces.
func spawnState(g *terrain.Map, body *physics.Tank, x, z, yaw float64) deadreckon.State {
	p := body.Pose()
	if p.Orientation.Len() > 0.5 && deadreckon.Finite(p.Position[1]) && p.Position[0] == x && p.Position[2] == z {
		return p.State()
	}
	h, _ := g.HeightAt(x, z)
	s := deadreckon.NewState(mgl64.Vec3{x, h, z})
	s.Orientation = deadreckon.YawQuat(yaw)
	s.NumArticulations = physics.NumArticulations
	return s
}

// respawnLocal puts a local tank back on a spawn point. The tank leaves the match
// and re-enters it under a new actor id, so every peer applies the jump as a
// continuity break (and the host does not refuse it as an impossible move). On a
// network link this waits for the host's answer to the spawn.
func (m *Match) respawnLocal(t *tank) {
	x, z, yaw := m.spawnSpot(t)
	t.body.Teleport(x, z, yaw)
	t.upsideFor = 0
	t.trail.reset()
	m.counters.respawns++
	old := t.id
	if err := m.link.Despawn(old); err != nil {
		m.log.Debug("respawn: despawn", "actor", old, "err", err)
	}
	delete(m.byID, old)
	s := spawnState(m.terr, t.body, x, z, yaw)
	id, err := m.link.Spawn(t.name, t.team, s)
	if err != nil {
		// Keep simulating; the next respawn check tries again.
		m.log.Warn("respawn failed", "name", t.name, "err", err)
		t.id, t.spawnFailed = 0, true
		return
	}
	t.id, t.spawnFailed = id, false
	m.byID[id] = t
	t.pub = deadreckon.NewPublisher(publisherConfig(m.dr), m.cfg.Seed^uint64(id)*0x2545f4914f6cdd1d)
	t.published, t.pubAt = s, m.last
	m.log.Debug("respawn", "name", t.name, "old", old, "actor", id, "x", x, "z", z)
}
