package referee

import (
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/terrain"
)

// hostFight is a referee on the real host in process (gametest's rig), on the fight's
// map, with a shooter and a bystander joined, each with one tank where the fight puts
// its shooter and its target.
type hostFight struct {
	f                   *fight
	ref                 *Referee
	rig                 *gametest.Rig
	shooter, bystander  *gametest.Link
	shooterID, targetID uint32
}

func newHostFight(t *testing.T, rules combat.Rules) *hostFight {
	t.Helper()
	f := newFight(t)
	ref, err := New(f.m, rules, f.reckon)
	if err != nil {
		t.Fatal(err)
	}
	rig, err := gametest.New(gametest.Config{Judge: ref, Extent: extentOf(f.m)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rig.Close() })
	h := &hostFight{f: f, ref: ref, rig: rig}
	if h.shooter, err = rig.Join(); err != nil {
		t.Fatal(err)
	}
	if h.bystander, err = rig.Join(); err != nil {
		t.Fatal(err)
	}
	rig.SetNow(1)
	if h.shooterID, err = h.shooter.Spawn("shooter", 1, stateAt(f.shooter, 1)); err != nil {
		t.Fatal(err)
	}
	if h.targetID, err = h.bystander.Spawn("target", 2, stateAt(f.target, 1)); err != nil {
		t.Fatal(err)
	}
	return h
}

// extentOf is the half-width of the square around the origin that holds m, m.
func extentOf(m *terrain.Map) float64 {
	lo, hi := m.Min(), m.Max()
	return math.Max(math.Max(-lo[0], -lo[1]), math.Max(hi[0], hi[1]))
}

// stateAt is s at host time at, standing still.
func stateAt(s deadreckon.State, at float64) deadreckon.State {
	s.Time, s.Velocity = at, mgl64.Vec3{}
	s.NumArticulations = 2
	return s
}

// verdicts returns the verdicts (HitResult messages) that reached l since the last
// poll.
func verdicts(l *gametest.Link) []*wire.HitResult {
	var out []*wire.HitResult
	for _, ev := range l.Poll(nil) {
		if hr, ok := ev.Message.(*wire.HitResult); ok {
			out = append(out, hr)
		}
	}
	return out
}

// TestRefusalGoesToTheShooterOnly: a refused claim's verdict reaches its shooter and
// nobody else, so a flood of forged claims is not relayed to every player (about 20
// a second reached everyone).
func TestRefusalGoesToTheShooterOnly(t *testing.T) {
	h := newHostFight(t, combat.Rules{Reload: 0.5})
	f := h.f
	h.rig.SetNow(2)
	verdicts(h.shooter)
	verdicts(h.bystander)
	// Forged claims: shells fired the other way, claimed as hits on the target.
	const forged = 3
	for i := range forged {
		at := 2 + float64(i)
		h.rig.SetNow(at)
		s := combat.Shot{ID: uint32(i + 1), Shooter: h.shooterID, Time: at,
			Origin: f.shooter.Position.Add(mgl64.Vec3{-4.9, 1.9, 0}), Direction: mgl64.Vec3{-1, 0.05, 0}.Normalize()}
		fire, err := combat.FireMessage(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.shooter.Send(fire); err != nil {
			t.Fatal(err)
		}
		c := combat.Claim{Shooter: h.shooterID, Shot: s.ID, Target: h.targetID, Time: at + 0.3, Impact: at + 0.25,
			Local: mgl64.Vec3{0, 1, 0}, Fired: s, Observer: f.shooter.Position, Reckon: combat.ModeOf(f.reckon)}
		c.Applied[0] = combat.Applied{Update: 1, At: 1.1}
		claim, err := combat.ClaimMessage(c)
		if err != nil {
			t.Fatal(err)
		}
		h.rig.SetNow(at + 0.3)
		if err := h.shooter.Send(claim); err != nil {
			t.Fatal(err)
		}
	}
	h.rig.SetNow(6)
	mine, theirs := verdicts(h.shooter), verdicts(h.bystander)
	if len(mine) != forged {
		t.Errorf("the shooter heard %d verdicts on its %d forged claims, want each", len(mine), forged)
	}
	for _, hr := range mine {
		if hr.Verdict == uint8(combat.Accepted) {
			t.Errorf("a forged claim accepted: %+v", hr)
		}
	}
	if len(theirs) != 0 {
		t.Errorf("a bystander heard %d verdicts on another player's refused claims, want none: %+v", len(theirs), theirs[0])
	}
	if n := h.ref.Counts().Verdicts[combat.Accepted]; n != 0 {
		t.Errorf("%d claims accepted", n)
	}
}

// TestRespawnPlacedByTheHost: a respawn asked for far from the spawn area (a tank
// that jumped 566 m at once) or beside an enemy enters where the host's spawn rule
// puts it, as everyone sees it; one asked for on the pad with the most room (away
// from the enemy and from where the tank left) enters where asked.
func TestRespawnPlacedByTheHost(t *testing.T) {
	h := newHostFight(t, combat.Rules{})
	m := h.f.m
	pads := combat.SpawnPads(m)
	enemy, _ := h.ref.check.lastPosition(h.targetID)
	roomiest := func() mgl64.Vec2 {
		left, _ := h.ref.check.lastPosition(h.shooterID)
		best := pads[0]
		for _, p := range pads {
			if combat.SpawnRoom(p, []mgl64.Vec3{enemy}, left, true) > combat.SpawnRoom(best, []mgl64.Vec3{enemy}, left, true) {
				best = p
			}
		}
		return best
	}
	lo := m.Min()
	for i, c := range []struct {
		what  string
		asked func() mgl64.Vec2
		moved bool
	}{
		{"off every pad, in a corner", func() mgl64.Vec2 { return mgl64.Vec2{lo[0] + 20, lo[1] + 20} }, true},
		{"beside the enemy", func() mgl64.Vec2 { return mgl64.Vec2{enemy[0] + 5, enemy[2]} }, true},
		{"on the pad with the most room", roomiest, false},
	} {
		asked := c.asked()
		now := 2 + float64(i)
		h.rig.SetNow(now)
		if err := h.shooter.Despawn(h.shooterID); err != nil {
			t.Fatal(err)
		}
		y, _ := m.HeightAt(asked[0], asked[1])
		s := deadreckon.NewState(mgl64.Vec3{asked[0], y, asked[1]})
		id, err := h.shooter.Spawn("shooter", 1, stateAt(s, now))
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		h.shooterID = id
		var seen *deadreckon.State
		for _, ev := range h.bystander.Poll(nil) {
			if ev.Kind == net.EventSpawn && ev.Actor == id {
				seen = &ev.State
			}
		}
		if seen == nil {
			t.Fatalf("%s: the bystander never saw the respawn", c.what)
		}
		at := mgl64.Vec2{seen.Position[0], seen.Position[2]}
		off := at.Sub(asked).Len()
		switch {
		case c.moved && off < 1:
			t.Errorf("%s: entered where it asked, %v", c.what, at)
		case c.moved && !combat.InSpawnArea(m, at, 0):
			t.Errorf("%s: moved to %v, outside the spawn area", c.what, at)
		case c.moved && at.Sub(mgl64.Vec2{enemy[0], enemy[2]}).Len() < 2*combat.SpawnClearance:
			t.Errorf("%s: moved to %v, %.0f m from the enemy", c.what, at, at.Sub(mgl64.Vec2{enemy[0], enemy[2]}).Len())
		case !c.moved && off > 0.1:
			t.Errorf("%s: moved %.1f m to %v, want where it asked", c.what, off, at)
		}
	}
}

// TestFirstSpawnPlacedByTheHost: an attack client writing raw wire.Spawn messages
// asks for its tanks' first spawns where a cheat would start: right behind an enemy
// out in the field, and on the map's highest ground outside the spawn area,
// overlooking it. Each enters where the host's spawn rule puts it, in the spawn area,
// as everyone sees it; one asked for in the spawn area enters where asked.
func TestFirstSpawnPlacedByTheHost(t *testing.T) {
	h := newHostFight(t, combat.Rules{})
	m := h.f.m
	hill := highestOutsideSpawnArea(m)
	now, dir := h.driveOut(t, hill)
	enemy, _ := h.ref.check.lastPosition(h.targetID)
	if combat.InSpawnArea(m, mgl64.Vec2{enemy[0], enemy[2]}, 20) {
		t.Fatalf("the host shows the enemy at %v, in the spawn area", enemy)
	}
	// The pad farthest from every tank: one asked for on a tank is placed elsewhere.
	var pad mgl64.Vec2
	padRoom := -1.0
	for _, c := range combat.SpawnPads(m) {
		room := math.Inf(1)
		for id := range h.ref.tanks {
			if at, ok := h.ref.check.lastPosition(id); ok {
				room = math.Min(room, c.Sub(mgl64.Vec2{at[0], at[2]}).Len())
			}
		}
		if room > padRoom {
			pad, padRoom = c, room
		}
	}
	attacker, err := h.rig.Join()
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		name  string
		asked mgl64.Vec2
		moved bool
	}{
		{"behind", mgl64.Vec2{enemy[0], enemy[2]}.Sub(mgl64.Vec2{dir[0], dir[2]}.Mul(8)), true},
		{"hill", hill, true},
		{"pad", pad, false},
	} {
		now := now + 1 + float64(i)
		h.rig.SetNow(now)
		y, _ := m.HeightAt(c.asked[0], c.asked[1])
		s := stateAt(deadreckon.NewState(mgl64.Vec3{c.asked[0], y, c.asked[1]}), now)
		// A provisional actor id, as a client's own spawns carry (0xF000 up).
		if err := attacker.Send(&wire.Spawn{Actor: wire.ActorID(0xF000 + i), Owner: wire.PlayerID(attacker.ID()), Team: 1, Name: c.name, State: s}); err != nil {
			t.Fatal(err)
		}
		var seen *deadreckon.State
		h.rig.SetNow(now + 0.5)
		for _, ev := range h.bystander.Poll(nil) {
			if ev.Kind == net.EventSpawn && ev.Owner == attacker.ID() && ev.Name == c.name {
				seen = &ev.State
			}
		}
		if seen == nil {
			t.Fatalf("%s: the bystander never saw the spawn", c.name)
		}
		at := mgl64.Vec2{seen.Position[0], seen.Position[2]}
		switch off := at.Sub(c.asked).Len(); {
		case c.moved && off < 1:
			t.Errorf("%s: entered where it asked, %v", c.name, at)
		case c.moved && !combat.InSpawnArea(m, at, 0):
			t.Errorf("%s: placed at %v, outside the spawn area", c.name, at)
		case !c.moved && off > 0.1:
			t.Errorf("%s: moved %.1f m to %v, want where it asked", c.name, off, at)
		}
	}
}

// highestOutsideSpawnArea returns the highest ground of m outside the spawn area
// (sampled every 4 m), a sniper's hill.
func highestOutsideSpawnArea(m *terrain.Map) mgl64.Vec2 {
	hill, top := mgl64.Vec2{}, math.Inf(-1)
	lo, hi := m.Min(), m.Max()
	for x := lo[0] + combat.SpawnMargin; x <= hi[0]-combat.SpawnMargin; x += 4 {
		for z := lo[1] + combat.SpawnMargin; z <= hi[1]-combat.SpawnMargin; z += 4 {
			if y, _ := m.HeightAt(x, z); y > top && !combat.InSpawnArea(m, mgl64.Vec2{x, z}, spawnSlack) {
				hill, top = mgl64.Vec2{x, z}, y
			}
		}
	}
	return hill
}

// driveOut drives the fight's target from where it is towards c at 12 m/s, an update
// every 0.25 s, until it is 20 m beyond the spawn area, and returns the host time then
// and the direction it drove.
func (h *hostFight) driveOut(t *testing.T, c mgl64.Vec2) (float64, mgl64.Vec3) {
	t.Helper()
	start, _ := h.ref.check.lastPosition(h.targetID)
	dir := mgl64.Vec3{c[0] - start[0], 0, c[1] - start[2]}.Normalize()
	for k := 1; k <= 400; k++ {
		now := 1 + 0.25*float64(k)
		h.rig.SetNow(now)
		s := stateAt(deadreckon.NewState(start.Add(dir.Mul(12*(now-1)))), now)
		s.Velocity = dir.Mul(12)
		if err := h.bystander.Publish(h.targetID, s); err != nil {
			t.Fatal(err)
		}
		if !combat.InSpawnArea(h.f.m, mgl64.Vec2{s.Position[0], s.Position[2]}, 20) {
			return now, dir
		}
	}
	t.Fatal("the target never left the spawn area")
	return 0, dir
}

// TestRespawnWaitsForTheWreck: a destroyed player's respawn is refused until its
// wreck time is over.
func TestRespawnWaitsForTheWreck(t *testing.T) {
	f, r := refereeFight(t, combat.Rules{NoArmour: true, Damage: 100, WreckTime: 5})
	s, c := f.shoot(t, 1, 3)
	r.fire(s, 3.1)
	if v := r.claim(c, c.Time+0.1, f.link); v.Reason != combat.Accepted {
		t.Fatal(v.Reason)
	}
	if _, alive := r.health(2); alive {
		t.Fatal("the target survived")
	}
	wreck := c.Time + 0.1
	r.Despawned(2, wreck+0.5)
	pad := combat.SpawnPads(f.m)[0]
	y, _ := f.m.HeightAt(pad[0], pad[1])
	asked := deadreckon.NewState(mgl64.Vec3{pad[0], y, pad[1]})
	for _, c := range []struct {
		after float64
		ok    bool
	}{{0.5, false}, {4.9, false}, {5.1, true}} {
		_, err := r.Place(2, "target", 2, asked, wreck+c.after)
		if (err == nil) != c.ok {
			t.Errorf("a respawn %.1f s after its destruction: %v, want allowed %v", c.after, err, c.ok)
		}
	}
}

// TestTeamFixedForTheMatch: a player's spawns keep the team its first spawn of the
// match chose, however it leaves and comes back, and the next match lets it choose
// again, its scoreboard line following.
func TestTeamFixedForTheMatch(t *testing.T) {
	f, r := refereeFight(t, combat.Rules{WreckTime: 5, TimeLimit: 60, ScoreboardTime: 5})
	pad := combat.SpawnPads(f.m)[0]
	y, _ := f.m.HeightAt(pad[0], pad[1])
	asked := deadreckon.NewState(mgl64.Vec3{pad[0], y, pad[1]})
	r.Despawned(2, 1) // the target leaves, on team 2
	if _, err := r.Place(2, "target", 1, asked, 2); err == nil {
		t.Error("the target came back on the shooter's team")
	}
	if _, err := r.Place(2, "target", 2, asked, 2); err != nil {
		t.Errorf("the target came back on its own team: %v", err)
	}
	// The match ends by its clock; the next begins after the scoreboard's time.
	r.Tick(61)
	r.Tick(67)
	if _, err := r.Place(2, "target", 1, asked, 68); err != nil {
		t.Fatalf("at the next match the target chose another team: %v", err)
	}
	r.Spawned(9, 2, "target", 1, asked, 68)
	for _, sc := range r.Scores(nil) {
		if sc.Name == "target" && sc.Team != 1 {
			t.Errorf("the target's scoreboard line is on team %d, want 1", sc.Team)
		}
	}
	if _, err := r.Place(2, "target", 2, asked, 69); err == nil {
		t.Error("the target hopped back within the new match")
	}
}

// TestSpawnHeldToTheGround asks for first spawns on a spawn pad high above and far
// below its ground: every observer sees each tank enter on the ground under the pad,
// as its later updates must be, and one asked for on the ground enters as asked.
func TestSpawnHeldToTheGround(t *testing.T) {
	h := newHostFight(t, combat.Rules{})
	m := h.f.m
	attacker, err := h.rig.Join()
	if err != nil {
		t.Fatal(err)
	}
	pads := combat.SpawnPads(m)
	for i, up := range []float64{150, -150, 60, 195, 0.2} {
		now := 2 + float64(i)
		h.rig.SetNow(now)
		pad := pads[i%len(pads)]
		ground, _ := m.HeightAt(pad[0], pad[1])
		s := stateAt(deadreckon.NewState(mgl64.Vec3{pad[0], ground + up, pad[1]}), now)
		name := fmt.Sprintf("up%d", i)
		if err := attacker.Send(&wire.Spawn{Actor: wire.ActorID(0xF100 + i), Owner: wire.PlayerID(attacker.ID()), Team: 1, Name: name, State: s}); err != nil {
			t.Fatal(err)
		}
		h.rig.SetNow(now + 0.5)
		var seen *deadreckon.State
		for _, ev := range h.bystander.Poll(nil) {
			if ev.Kind == net.EventSpawn && ev.Owner == attacker.ID() && ev.Name == name {
				seen = &ev.State
			}
		}
		if seen == nil {
			t.Fatalf("asked %+.0f m over the ground: the bystander never saw the spawn", up)
		}
		got, _ := m.HeightAt(seen.Position[0], seen.Position[2])
		want := got
		if up >= -clampBelow && up <= clampAbove {
			want = ground + up
		}
		if d := seen.Position[1] - want; math.Abs(d) > 0.05 {
			t.Errorf("asked %+.1f m over the ground: entered at y = %.2f, %.2f m from %.2f", up, seen.Position[1], d, want)
		}
	}
}

// TestTeamAssigned: under AssignTeams, a player asking for no team goes to the team
// with fewer players in the match (the lower on a tie) and stays there for the
// match; a team asked for stands; without AssignTeams no team stays no team.
func TestTeamAssigned(t *testing.T) {
	f, r := refereeFight(t, combat.Rules{})
	if got := r.Team(7, "ann", 0); got != 0 {
		t.Errorf("without AssignTeams, a player asking for no team got team %d", got)
	}
	r.AssignTeams()
	// The fight's shooter is on team 1, its target on team 2: a tie.
	if got := r.Team(7, "ann", 0); got != 1 {
		t.Errorf("on a tie, ann got team %d, want 1", got)
	}
	r.Spawned(10, 7, "ann", 1, f.shooter, 1)
	if got := r.Team(8, "bob", 0); got != 2 {
		t.Errorf("against two on team 1 and one on team 2, bob got team %d, want 2", got)
	}
	if got := r.Team(8, "bob", 1); got != 1 {
		t.Errorf("bob asking for team 1 got team %d", got)
	}
	if got := r.Team(7, "ann", 0); got != 1 {
		t.Errorf("ann, on team 1 for this match, got team %d asking for none", got)
	}
}
