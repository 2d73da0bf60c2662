package game

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/bot"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/terrain"
)

// The spawn rule is the match's (combat's): the host's referee holds respawns to it.
const (
	spawnClearance = combat.SpawnClearance
	spawnRings     = combat.SpawnRings
)

// spawnSpot picks where a local tank of team (re)appears, facing its nearest enemy or
// the map's middle (combat.SpawnFacing).
// Without combat it takes the spawn pad farthest from every other tank. In a match
// with combat, teams matter: it takes the pad farthest from the tank's enemies,
// weighted against pads an enemy can see (respawnScore), so a tank never starts in
// an enemy's sight when a pad out of it is free. died, when not nil, is where the tank
// was destroyed, and pads near it are avoided too. skip is the tank itself once it is
// in the match (nil before). When the chosen pad is not free, it takes the first free
// place on the rings around it (around a random pad without combat). A place is free
// when no tank this peer knows of, friend or foe, is within spawnClearance and no rock
// covers it. Only when nowhere is free (never with 64 tanks on a map with pads, nor with 512 on expanse)
// does it take the place with the most room.
func (m *Match) spawnSpot(team int, skip *tank, died *mgl64.Vec3) (x, z, yaw float64) {
	pads := m.terr.Spawns()
	lo, hi := m.terr.Min(), m.terr.Max()
	mid := mgl64.Vec2{(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2}
	if len(pads) == 0 {
		pads = []mgl64.Vec2{mid}
	}
	enemiesOnly := m.combat != nil
	m.placeOthers(skip, team)
	best, bestD, bestScore := pads[0], -1.0, -1.0
	start := m.rng.IntN(len(pads))
	ringFrom := start
	for k := range pads {
		c := pads[(start+k)%len(pads)]
		d := m.tankRoom(c, enemiesOnly, math.Inf(-1))
		score := d
		if enemiesOnly {
			score = m.respawnScore(c, team, skip, died)
		}
		if score > bestScore {
			best, bestD, bestScore, ringFrom = c, d, score, (start+k)%len(pads)
		}
		if math.IsInf(score, 1) {
			break
		}
	}
	// With combat, a tank keeps the pad it chose for its safety unless the pad is
	// taken; then it searches the rings around that pad first.
	crowded := bestD < spawnClearance*4 && !enemiesOnly
	if !enemiesOnly {
		ringFrom = start
	}
	if bestRoom := m.room(best, math.Inf(-1)); crowded || bestRoom < spawnClearance {
		turn := m.rng.Float64() * 2 * math.Pi
	search:
		for ring := 1; ring <= spawnRings; ring++ {
			for k := range pads {
				pad := pads[(ringFrom+k)%len(pads)]
				for i := range 6 * ring {
					c := combat.SpawnRingPlace(pad, ring, i, turn)
					if !m.insideSpawnArea(c) {
						continue
					}
					if rc := m.room(c, bestRoom); rc > bestRoom {
						best, bestRoom = c, rc
						if rc >= spawnClearance {
							break search
						}
					}
				}
			}
		}
	}
	return best[0], best[1], combat.SpawnFacing(m.terr, best, m.enemiesOf(team, skip))
}

// respawnScore weighs pad c for a tank of team by the match's spawn rule
// (combat.SpawnScore), from its distance to the nearest enemy: a pad in an enemy's line
// of sight, or near died (where the tank was destroyed: the same spot and view again),
// scores lower, so another pad is taken when there is one.
func (m *Match) respawnScore(c mgl64.Vec2, team int, skip *tank, died *mgl64.Vec3) float64 {
	var at mgl64.Vec3
	if died != nil {
		at = *died
	}
	return combat.SpawnScore(m.terr, c, m.enemiesOf(team, skip), at, died != nil)
}

// seenFrom reports whether an enemy of team (other than skip), as this peer shows it,
// sees a tank at c within the spawn rule's sight range.
func (m *Match) seenFrom(c mgl64.Vec2, team int, skip *tank) bool {
	enemies := m.enemiesOf(team, skip)
	return combat.SpawnScore(m.terr, c, enemies, mgl64.Vec3{}, false) < combat.SpawnRoom(c, enemies, mgl64.Vec3{}, false)
}

// enemiesOf returns where this peer shows the enemies of team other than skip, in a
// buffer the next call reuses.
func (m *Match) enemiesOf(team int, skip *tank) []mgl64.Vec3 {
	m.enemyAt = m.enemyAt[:0]
	for _, t := range m.tanks {
		if t == skip || !combat.Enemies(team, t.team) {
			continue
		}
		p := t.view.Position
		if t.local && t.body != nil {
			p = t.body.Pose().Position
		}
		m.enemyAt = append(m.enemyAt, p)
	}
	return m.enemyAt
}

// other is one tank's place for a spawn's choice: where this peer shows it, and
// whether it is an enemy of the spawning tank.
type other struct {
	x, z  float64
	enemy bool
}

// placeOthers gathers where this peer shows every tank but skip, once per choice of a
// spawn place: the choice measures hundreds of candidate places against them, and a
// local tank's pose is read from physics.
func (m *Match) placeOthers(skip *tank, team int) {
	m.others = m.others[:0]
	for _, t := range m.tanks {
		if t == skip {
			continue
		}
		p := t.view.Position
		if t.local && t.body != nil {
			p = t.body.Pose().Position
		}
		m.others = append(m.others, other{x: p[0], z: p[2], enemy: combat.Enemies(team, t.team)})
	}
}

// tankRoom returns the distance from c to the nearest tank placeOthers gathered (only
// the enemies when enemiesOnly), m; +Inf when there is none. It may stop early with any
// distance at or under below once the nearest is known to be that close: a caller
// that only asks whether c beats below needs no more.
func (m *Match) tankRoom(c mgl64.Vec2, enemiesOnly bool, below float64) float64 {
	best, bx, bz := math.Inf(1), 0.0, 0.0
	stop := math.Copysign(below*below, below)
	for _, o := range m.others {
		if enemiesOnly && !o.enemy {
			continue
		}
		dx, dz := o.x-c[0], o.z-c[1]
		if d2 := dx*dx + dz*dz; d2 < best {
			best, bx, bz = d2, dx, dz
			if best <= stop {
				return math.Min(math.Hypot(bx, bz), below) // squares and roots may differ by an ulp
			}
		}
	}
	if math.IsInf(best, 1) {
		return best
	}
	return math.Hypot(bx, bz)
}

// room returns the room c leaves to the nearest tank or rock (the lesser of tankRoom
// and rockRoom), m, stopping early, as tankRoom does, at or under below.
func (m *Match) room(c mgl64.Vec2, below float64) float64 {
	d := m.tankRoom(c, false, below)
	if d <= below {
		return d
	}
	return math.Min(d, m.rockRoom(c))
}

// rockRoom returns the room c leaves to the nearest rock, counted as tankRoom counts
// it for tanks: a tank centre spawnClearance/2 from a rock's edge has spawnClearance.
func (m *Match) rockRoom(c mgl64.Vec2) float64 {
	d := math.Inf(1)
	for _, o := range m.terr.Obstacles() {
		d = math.Min(d, mgl64.Vec2{o.X - c[0], o.Z - c[1]}.Len()-o.Radius+spawnClearance/2)
	}
	return d
}

// insideSpawnArea reports whether c is far enough inside the map border to spawn at.
func (m *Match) insideSpawnArea(c mgl64.Vec2) bool {
	lo, hi := m.terr.Min(), m.terr.Max()
	in := combat.SpawnMargin
	return c[0] >= lo[0]+in && c[0] <= hi[0]-in && c[1] >= lo[1]+in && c[1] <= hi[1]-in
}

// spawnLocal adds a local tank to the physics world and announces it on the link.
func (m *Match) spawnLocal(name string, team int, bot *bot.Driver) (*tank, error) {
	x, z, yaw := m.spawnSpot(team, nil, nil)
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
		id: id, owner: m.link.ID(), name: name, team: team, local: true, spawnAt: s.Time,
		body: body, bot: bot,
		published: s, asked: s,
		trail: newRing(m.cfg.TrailLength),
	}
	m.newPublisher(t, m.publishing())
	t.view.Position, t.view.Orientation = s.Position, s.Orientation
	m.tanks = append(m.tanks, t)
	m.own = append(m.own, t)
	m.byID[id] = t
	m.locals++
	if bot != nil {
		m.localBots++
	}
	m.log.Debug("local tank", "actor", id, "name", name, "x", x, "z", z)
	return t, nil
}

// spawnedAt is the host time the tank of spawn event ev (arrived at local time now)
// spawned: its state's stamp, or -Inf for a tank that was in the match before this
// peer joined (its spawn is long past; the welcome carries its state of now).
func (m *Match) spawnedAt(ev *net.Event, now float64) float64 {
	if !m.started || now-m.startedAt < rosterGrace {
		return math.Inf(-1)
	}
	return ev.State.Time
}

// spawnState is the state a freshly placed tank announces.
func spawnState(g *terrain.Map, body *physics.Tank, x, z, yaw float64) deadreckon.State {
	p := body.Pose()
	if p.Orientation.Len() > 0.5 && geom.Finite(p.Position[1]) && p.Position[0] == x && p.Position[2] == z {
		return p.State()
	}
	h, _ := g.HeightAt(x, z)
	s := deadreckon.NewState(mgl64.Vec3{x, h, z})
	s.Orientation = geom.YawQuat(yaw)
	s.NumArticulations = physics.NumArticulations
	return s
}

// respawnLocal puts a local tank back on a spawn point. The tank leaves the match
// and re-enters it under a new actor id, so every peer applies the jump as a
// continuity break (and the host does not refuse it as an impossible move). On a
// network link this waits for the host's answer to the spawn.
func (m *Match) respawnLocal(t *tank) {
	died := t.body.Pose().Position
	x, z, yaw := m.spawnSpot(t.team, t, &died)
	m.moveLocal(t, x, z, yaw)
}

// keepClear moves local tank t, just spawned, when what the match has learned since
// shows its place taken or in an enemy's sight and a better one is free.
func (m *Match) keepClear(t *tank) {
	p := t.body.Pose().Position
	c := mgl64.Vec2{p[0], p[2]}
	m.placeOthers(t, t.team)
	if m.room(c, math.Inf(-1)) >= spawnClearance &&
		(m.combat == nil || !m.seenFrom(c, t.team, t)) {
		return
	}
	if x, z, yaw := m.spawnSpot(t.team, t, nil); x != c[0] || z != c[1] {
		m.moveLocal(t, x, z, yaw)
	}
}

// moveLocal puts local tank t at (x, z) facing yaw, through the continuity break of a
// respawn.
func (m *Match) moveLocal(t *tank, x, z, yaw float64) {
	if m.combat != nil {
		m.combat.aims.fresh = false // t's id changes: the gunners aim anew
	}
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
	id, placed, known, err := m.spawnOnLink(t.name, t.team, s)
	if err != nil {
		// Keep simulating; a respawn check after the wait tries again.
		t.retryWait = min(max(2*t.retryWait, spawnRetry), spawnRetryMax)
		t.retryAt = m.last + t.retryWait
		m.log.Warn("respawn failed", "name", t.name, "err", err, "retry_in", t.retryWait)
		t.id, t.spawnFailed = 0, true
		return
	}
	t.id, t.spawnFailed, t.retryWait, t.spawnAt = id, false, 0, s.Time
	m.byID[id] = t
	m.newPublisher(t, m.publishing())
	t.published, t.pubAt, t.asked, t.placed = s, m.last, s, false
	m.log.Debug("respawn", "name", t.name, "old", old, "actor", id, "x", x, "z", z)
	if known && m.takePlace(t, &placed) {
		// Before the first update of the tank goes out, the one this tick's publish
		// sends: the host's answer is in hand, its EventSpawn only in the next
		// receive.
		t.placed = true
	}
}

// spawnOnLink asks the link for an actor at s, and returns its id and, on a
// PlacingLink (known), the state the host put it in.
func (m *Match) spawnOnLink(name string, team int, s deadreckon.State) (id uint32, placed deadreckon.State, known bool, err error) {
	if pl, ok := m.link.(PlacingLink); ok {
		id, placed, err = pl.SpawnPlaced(name, team, s)
		return id, placed, err == nil, err
	}
	id, err = m.link.Spawn(name, team, s)
	return id, deadreckon.State{}, false, err
}

// A respawn the host refused is asked again after spawnRetry, then after twice as
// long for each refusal in a row, up to spawnRetryMax, s. The host refuses a wreck
// that asks before its time (a clock-sync error, a few milliseconds, so the first
// retry comes soon) and a player over its spawn budget (net.Limits.RespawnInterval,
// which earns a spawn in seconds): asking every frame would be refused every frame,
// each refusal a round trip.
const (
	spawnRetry    = 0.05
	spawnRetryMax = 2.0
)

// spawnMoved is how far the host may put a local tank from where it asked to spawn
// before the tank moves there, m: well above the wire's quantization (millimetres)
// and below any real choice of another place (the host's movement check refuses a jump
// of 2 m at once, and the host counts a place 5 cm off as a placement).
const spawnMoved = 0.1

// spawnTurned is how far the host may turn a local tank from the heading it asked to
// spawn with before the tank turns there, rad: well above the wire's quantization and
// below the host's tolerance on a turn (net.DefaultTurnSlack). The host faces a tank it
// places toward the nearest enemy, and its place can fall within spawnMoved of where
// the tank asked.
const spawnTurned = 0.05

// spawnConfirmed applies the host's answer to a spawn of a local tank: the tank takes
// the team the host announced (a player's own tank says so in a notice), and the host's
// referee places a respawn by the match's spawn rule, and a tank it put elsewhere
// than asked moves there, unless it did when the host answered (moveLocal, on a
// PlacingLink); a practice's fair pad is the host's choice too; a wreck is refused
// until its time is up, and the next respawn check asks again.
func (m *Match) spawnConfirmed(ev *net.Event) {
	t := m.byID[ev.Actor]
	if t == nil || !t.local || t.body == nil {
		return
	}
	t.spawnAt = ev.State.Time // the host's stamp, as the referee counts protection from
	if tc := m.combatOf(t); tc != nil {
		tc.born = t.spawnAt
	}
	if ev.Team != t.team {
		// The host put it on a team (a player who asked for none): it plays there.
		t.team = ev.Team
		if t.bot == nil {
			m.notify(Notice{Kind: NoticeTeam, Who: t.name, Team: t.team})
		}
	}
	if !t.placed && !m.takePlace(t, &ev.State) {
		return
	}
	if tc := m.combatOf(t); tc != nil {
		tc.from, tc.far = ev.State.Position, 0 // its spawn protection counts from the host's place
	}
}

// takePlace moves local tank t, just spawned, to the place and heading of placed,
// the state the host gave its spawn, when the host put it elsewhere than it asked
// (spawnMoved, spawnTurned), and reports whether it did.
func (m *Match) takePlace(t *tank, placed *deadreckon.State) bool {
	at := placed.Position
	yaw := geom.Yaw(placed.Orientation)
	if (mgl64.Vec2{at[0] - t.asked.Position[0], at[2] - t.asked.Position[2]}).Len() <= spawnMoved &&
		math.Abs(geom.WrapAngle(yaw-geom.Yaw(t.asked.Orientation))) <= spawnTurned {
		return false
	}
	t.body.Teleport(at[0], at[2], yaw)
	t.upsideFor = 0
	t.trail.reset()
	s := spawnState(m.terr, t.body, at[0], at[2], yaw)
	m.newPublisher(t, m.dr)
	t.published, t.pubAt = s, m.last
	m.counters.placed++
	m.log.Debug("spawn moved by the host", "actor", t.id, "x", at[0], "z", at[2])
	return true
}
