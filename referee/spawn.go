package referee

import (
	"errors"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/net"
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
	best, bestRoom := pads[0], -1.0
	for _, c := range pads {
		if room := combat.SpawnRoom(c, r.enemyAt, died, hasDied); room > bestRoom {
			best, bestRoom = c, room
		}
	}
	asked := mgl64.Vec2{s.Position[0], s.Position[2]}
	if combat.InSpawnArea(r.check.terr, asked, spawnSlack) &&
		(p == nil || combat.SpawnRoom(asked, r.enemyAt, died, hasDied) >= combat.SpawnFairShare*bestRoom) {
		return r.onTheGround(s), nil
	}
	return r.placeNear(best, s), nil
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

// placeNear returns s moved to pad, or to the first place on the rings around it
// clear of every tank by combat.SpawnClearance, standing on the ground facing the
// nearest enemy or the map's middle (combat.SpawnFacing), at rest.
func (r *Referee) placeNear(pad mgl64.Vec2, s deadreckon.State) deadreckon.State {
	m := r.check.terr
	free := func(c mgl64.Vec2) bool {
		for _, t := range r.tankAt {
			if (mgl64.Vec2{t[0] - c[0], t[2] - c[1]}).Len() < combat.SpawnClearance {
				return false
			}
		}
		for _, o := range m.Obstacles() {
			if (mgl64.Vec2{o.X - c[0], o.Z - c[1]}).Len()-o.Radius < combat.SpawnClearance/2 {
				return false
			}
		}
		return true
	}
	c := pad
search:
	for ring := 1; !free(c) && ring <= combat.SpawnRings; ring++ {
		for i := range 6 * ring {
			q := combat.SpawnRingPlace(pad, ring, i, 0)
			if combat.InSpawnArea(m, q, 0) && free(q) {
				c = q
				break search
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

// lastPosition returns where actor was last reported, and whether the checker knows
// it.
func (h *Checker) lastPosition(actor uint32) (mgl64.Vec3, bool) {
	r := h.actors[actor]
	if r == nil || r.n == 0 {
		return mgl64.Vec3{}, false
	}
	return r.at(r.n - 1).s.Position, true
}
