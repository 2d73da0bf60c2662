package referee

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/tank"
)

// TestRespawnKeepsCombatState: a despawn and a spawn (a new actor id) of one player
// neither heal it, nor reload its gun, nor cut its wreck time short.
func TestRespawnKeepsCombatState(t *testing.T) {
	f, r := refereeFight(t, combat.Rules{NoArmour: true, Damage: 60, Reload: 1, WreckTime: 5})
	s, c := f.shoot(t, 1, 3)
	r.fire(s, 3.1)
	if v := r.claim(c, c.Time+0.1, f.link); v.Reason != combat.Accepted {
		t.Fatal(v.Reason)
	}
	// The damaged target respawns as actor 3: still 40.
	r.Despawned(2, 3.5)
	r.Spawned(3, 2, "target", 2, f.target, 3.5)
	if h, alive := r.health(3); h != 40 || !alive {
		t.Errorf("respawned at %v (alive %v), want the 40 it had", h, alive)
	}
	// The shooter respawns as actor 4 right after firing: its gun is still loading.
	r.Despawned(1, 3.6)
	r.Spawned(4, 1, "shooter", 1, f.shooter, 3.6)
	again := s
	again.ID, again.Shooter, again.Time = 2, 4, 3.7
	if v := r.fire(again, 3.75); v != combat.RejectReload {
		t.Errorf("a shot 0.7 s after the last, through a respawn: %v, want %v", v, combat.RejectReload)
	}
	// A destroyed player that respawns at once is a wreck until its wreck time is up.
	r.tanks[3].p.health, r.tanks[3].p.alive, r.tanks[3].p.wreckAt = 0, false, 4
	r.Despawned(3, 4.1)
	r.Spawned(5, 2, "target", 2, f.target, 4.2)
	if h, alive := r.health(5); alive {
		t.Errorf("a wreck respawned 0.2 s after its destruction at %v, want a wreck for 5 s", h)
	}
	if v := r.fire(combat.Shot{ID: 1, Shooter: 5, Origin: f.target.Position, Direction: s.Direction, Time: 4.3}, 4.3); v != combat.RejectShooterDead {
		t.Errorf("a wreck's shot: %v, want %v", v, combat.RejectShooterDead)
	}
	r.Tick(8.9)
	if _, alive := r.health(5); alive {
		t.Error("revived before the wreck time was up")
	}
	r.Tick(9.1)
	if h, alive := r.health(5); !alive || h != r.Rules().MaxHealth {
		t.Errorf("after the wreck time: %v (alive %v), want repaired", h, alive)
	}
	// Its shots count again: the checker revived it with its player.
	if v := r.fire(combat.Shot{ID: 2, Shooter: 5, Origin: f.target.Position, Direction: s.Direction, Time: 9.2}, 9.2); v == combat.RejectShooterDead {
		t.Errorf("a revived tank's shot: %v", v)
	}
}

// TestNoScoreOnOwnTanks: a player's shells do no harm to its own tanks, whatever
// team each claims.
func TestNoScoreOnOwnTanks(t *testing.T) {
	// One player (peer 2, "farmer") with two tanks on two teams.
	f, r := refereeFightOf(t, combat.Rules{NoArmour: true, Damage: 100}, fighter{2, "farmer"}, fighter{2, "farmer"})
	s, c := f.shoot(t, 1, 5)
	r.fire(s, 5.1)
	r.claim(c, c.Time+0.1, f.link)
	if h, alive := r.health(2); !alive || h != 100 {
		t.Errorf("own tank at %v (alive %v), want untouched", h, alive)
	}
	for _, sc := range r.Scores(nil) {
		if sc.Kills != 0 {
			t.Errorf("a kill scored on an own tank: %+v", sc)
		}
	}
}

// TestScoreboardBounded: spawn churn under ever new names (what the host's own bots
// could do; net names a remote player's tanks after the player) keeps the players the
// referee remembers, and the scoreboard, bounded.
func TestScoreboardBounded(t *testing.T) {
	f, r := refereeFight(t, combat.Rules{})
	for i := range 3 * DefaultMaxPlayers {
		id := uint32(100 + i)
		at := 1 + float64(i)*0.001
		r.Spawned(id, 9, fmt.Sprintf("churn%d", i), 0, f.target, at)
		r.Despawned(id, at)
	}
	r.Tick(20) // past the pace of a board this size (boardPace)
	out := r.Outbox(nil)
	if n := len(r.Scores(nil)); n > wire.MaxScoreLines {
		t.Errorf("%d scoreboard lines after churning %d names, want at most %d", n, 3*DefaultMaxPlayers, wire.MaxScoreLines)
	}
	// The last scoreboard sent fits one message and keeps the players in the match,
	// whose names sort after every departed one's, at the same score.
	// whose names sort after every departed one's, at the same score. A board
	// travels in pages: the last one sent is the lines since the last first page.
	var last []wire.ScoreLine
	for _, m := range out {
		if sc, ok := m.Message.(*wire.Scores); ok {
			if sc.First == 0 {
				last = last[:0]
			}
			last = append(last, sc.Lines...)
		}
	}
	if len(last) != wire.MaxScoreLines {
		t.Errorf("%d lines sent, want %d", len(last), wire.MaxScoreLines)
	}
	for _, name := range []string{"shooter", "target"} {
		if !slices.ContainsFunc(last, func(l wire.ScoreLine) bool { return l.Name == name }) {
			t.Errorf("the scoreboard sent lost %s's line, in the match, to departed players", name)
		}
	}
	if len(r.players) > DefaultMaxPlayers {
		t.Errorf("%d players remembered", len(r.players))
	}
	// The players in the match are never forgotten.
	if r.scores[playerKey{1, "shooter"}] == nil || r.scores[playerKey{2, "target"}] == nil {
		t.Error("a player in the match lost its line")
	}
}

// TestOldNamedBasisRefused: a claim that names as its basis an update the host
// relayed seconds ago, reckoned in the static mode, puts the target where it stood
// then; the rewind cap refuses it however the basis is chosen.
func TestOldNamedBasisRefused(t *testing.T) {
	f := newFight(t)
	old := f.updates[2] // the target's update of t = 1 s; it has moved on since
	hp := combat.HullPose{Actor: 2, Position: old.s.Position, Orientation: old.s.Orientation}
	origin := f.shooter.Position.Add(mgl64.Vec3{4.9, 1.9, 0})
	dir := hp.Position.Add(mgl64.Vec3{0, 1.2, 0}).Sub(origin)
	el, _ := combat.BallisticElevation(math.Hypot(dir[0], dir[2]), dir[1])
	yaw := math.Atan2(dir[2], dir[0])
	const fired = 9.0
	s := combat.Shot{ID: 1, Shooter: 1, Origin: origin, Time: fired,
		Direction: mgl64.Vec3{math.Cos(el) * math.Cos(yaw), math.Sin(el), math.Cos(el) * math.Sin(yaw)}}
	imp := combat.SweepPath(f.m, s, fired, fired+2, []combat.HullPose{hp})
	if imp.Kind != combat.ImpactTank {
		t.Fatalf("the test shot struck %+v", imp)
	}
	static := f.reckon
	static.Algorithm = deadreckon.Static
	c := combat.Claim{Shooter: 1, Shot: 1, Target: 2, Time: imp.Time + 0.01, Impact: imp.Time, Local: imp.Local,
		Fired: s, Observer: f.shooter.Position, Reckon: combat.ModeOf(static)}
	c.Applied[0] = combat.Applied{Update: old.s.Time, At: old.at + f.link.Latency + 0.01}
	if r := f.check.Fired(s, fired+0.1); r != combat.Accepted {
		t.Fatalf("fire: %v", r)
	}
	now := f.target.Position.Add(f.target.Velocity.Mul(c.Time)).Sub(hp.Position).Len()
	if v := f.check.Check(c, c.Time+0.1, f.link); v.Reason != combat.RejectRewind {
		t.Errorf("a claim on where the target stood %.1f s ago (%.0f m from where it is): %v, want %v",
			c.Time-old.s.Time, now, v.Reason, combat.RejectRewind)
	}
}

// TestShotFromBeyondTheMapRefused: the host sees no terrain beyond the map's edge, so
// a path that starts there is refused as blocked rather than waved through as spent.
func TestShotFromBeyondTheMapRefused(t *testing.T) {
	f := newFight(t)
	hi := f.m.Max()
	x, z := hi[0]-8, (f.m.Min()[1]+hi[1])/2
	g, _ := f.m.HeightAt(x, z)
	target := deadreckon.NewState(mgl64.Vec3{x, g, z})
	f.check.Spawned(3, 3, target, 0)
	shooter := deadreckon.NewState(mgl64.Vec3{hi[0] + 16, g + 3, z})
	f.check.Spawned(4, 4, shooter, 0)
	for k := 1; k <= 20; k++ {
		a, b := target, shooter
		a.Time, b.Time = 0.5*float64(k), 0.5*float64(k)
		f.check.Relayed(3, a, a.Time+0.02)
		f.check.Relayed(4, b, b.Time+0.02)
	}
	const fired = 5.0
	hp, _ := f.check.rebuild(3, f.check.actors[3], view{time: fired + 0.1, link: f.link}, shooter.Position, true)
	origin := shooter.Position.Add(mgl64.Vec3{-4.9, 1.9, 0})
	dir := hp.Position.Add(mgl64.Vec3{0, 1.2, 0}).Sub(origin)
	el, _ := combat.BallisticElevation(math.Hypot(dir[0], dir[2]), dir[1])
	yaw := math.Atan2(dir[2], dir[0])
	s := combat.Shot{ID: 1, Shooter: 4, Origin: origin, Time: fired,
		Direction: mgl64.Vec3{math.Cos(el) * math.Cos(yaw), math.Sin(el), math.Cos(el) * math.Sin(yaw)}}
	imp := combat.Sweep(f.m, s, fired, fired+0.5, []combat.HullPose{hp})
	if imp.Kind != combat.ImpactTank {
		t.Fatalf("the test shot struck %+v", imp)
	}
	c := combat.Claim{Shooter: 4, Shot: 1, Target: 3, Time: imp.Time + 0.005, Impact: imp.Time, Local: imp.Local,
		Fired: s, Observer: shooter.Position, Reckon: combat.ModeOf(f.reckon)}
	if r := f.check.Fired(s, fired+0.1); r != combat.RejectImpossible {
		t.Errorf("fire from 16 m beyond the edge: %v, want %v (no ground under its muzzle)", r, combat.RejectImpossible)
	}
	if v := f.check.Check(c, c.Time+0.1, f.link); v.Reason == combat.Accepted {
		t.Errorf("a claim of a shot from 16 m beyond the edge: %v", v.Reason)
	}
	// The path check on its own refuses it too.
	if r := f.check.targetHittable(c, s, f.check.actors[3], c.Time+0.1, f.link); r != combat.RejectTerrain {
		t.Errorf("the path from beyond the edge: %v, want %v", r, combat.RejectTerrain)
	}
}

// TestShotFromAboveTheHullRefused: a shot's origin is the muzzle of a tank on the
// ground. The cheat of issue 20: a tank behind a crest that blocks its muzzle fires
// from 16.5 m above its hull (within the muzzle's reach plus the origin's slack of
// where the host shows it, 16.96 m) over the crest at a tank beyond, and scored
// 38.7 damage. Its shot is refused and the claim scores nothing; the honest muzzle
// and a shot from inside the ground are judged as they should be, and so is a tank
// published 40 m up.
func TestShotFromAboveTheHullRefused(t *testing.T) {
	for _, c := range []struct {
		name string
		up   float64 // above the honest muzzle, m
		want combat.Reason
	}{{"honest muzzle", 0, combat.Accepted}, {"inside the ground", -5, combat.RejectImpossible}} {
		t.Run(c.name, func(t *testing.T) {
			f, r := refereeFight(t, combat.Rules{})
			s, _ := f.shoot(t, 1, 5)
			s.Origin[1] += c.up
			if v := r.fire(s, 5.1); v != c.want {
				t.Errorf("shot from %+.1f m: %v, want %v", c.up, v, c.want)
			}
		})
	}
	t.Run("16.5 m above the hull, over a crest", func(t *testing.T) {
		f := newFight(t)
		r, err := New(f.m, combat.Rules{}, f.reckon)
		if err != nil {
			t.Fatal(err)
		}
		// A shooter in a hollow on the valley's northern slope, its muzzle blocked
		// by the lip in front of it, and a target 50 m west, 25 m below.
		place := func(x, z float64) deadreckon.State {
			h, _ := f.m.HeightAt(x, z)
			return deadreckon.NewState(mgl64.Vec3{x, h, z})
		}
		shooter, target := place(-107, 161), place(-157, 161)
		r.Spawned(1, 1, "shooter", 1, shooter, 0)
		r.Spawned(2, 2, "target", 2, target, 0)
		for k := 1; k <= 20; k++ {
			a, b := shooter, target
			a.Time, b.Time = 0.5*float64(k), 0.5*float64(k)
			r.Relayed(1, a, a.Time+0.02)
			r.Relayed(2, b, b.Time+0.02)
		}
		const fired = 5.0
		hp, _ := r.check.rebuild(2, r.check.actors[2], view{time: fired + 0.1, link: f.link}, shooter.Position, true)
		aim := func(origin mgl64.Vec3) combat.Shot {
			dir := hp.Position.Add(mgl64.Vec3{0, 1.2, 0}).Sub(origin)
			el, _ := combat.BallisticElevation(math.Hypot(dir[0], dir[2]), dir[1])
			yaw := math.Atan2(dir[2], dir[0])
			return combat.Shot{ID: 1, Shooter: 1, Origin: origin, Time: fired,
				Direction: mgl64.Vec3{math.Cos(el) * math.Cos(yaw), math.Sin(el), math.Cos(el) * math.Sin(yaw)}}
		}
		// The honest muzzle, 4.9 m ahead and 1.9 m up, hits the crest.
		if imp := combat.Sweep(f.m, aim(shooter.Position.Add(mgl64.Vec3{-4.9, 1.9, 0})), fired, fired+2, []combat.HullPose{hp}); imp.Kind != combat.ImpactGround {
			t.Fatalf("the honest muzzle's shot struck %+v, want the crest", imp)
		}
		s := aim(shooter.Position.Add(mgl64.Vec3{0, 16.5, 0}))
		var imp combat.Impact
		for frame := fired + 1.0/60; frame < fired+2 && imp.Kind == combat.ImpactNone; frame += 1.0 / 60 {
			imp = combat.Sweep(f.m, s, frame-1.0/60, frame, []combat.HullPose{hp})
		}
		if imp.Kind != combat.ImpactTank {
			t.Fatalf("the shot from above the hull struck %+v, want the target over the crest", imp)
		}
		if d := s.Origin.Sub(shooter.Position).Len(); d > tank.Default().MuzzleReach()+DefaultOriginSlack {
			t.Fatalf("the origin is %.2f m from the hull, beyond the reach and slack: not the cheat", d)
		}
		c := combat.Claim{Shooter: 1, Shot: 1, Target: 2, Time: imp.Time + 0.005, Impact: imp.Time, Local: imp.Local,
			Fired: s, Observer: shooter.Position, Reckon: combat.ModeOf(f.reckon)}
		if v := r.fire(s, fired+0.1); v != combat.RejectImpossible {
			t.Errorf("fire from 16.5 m above the hull: %v, want %v", v, combat.RejectImpossible)
		}
		if v := r.claim(c, c.Time+0.1, f.link); v.Reason == combat.Accepted {
			t.Errorf("its claim over the crest: %v", v.Reason)
		}
		if h, _ := r.health(2); h != r.Rules().MaxHealth {
			t.Errorf("the target behind the crest at %v health, want %v", h, r.Rules().MaxHealth)
		}
	})
	// A tank published 40 m up: its muzzle there is refused, whatever it says.
	f := newFight(t)
	up := f.shooter
	up.Position[1] += 40
	f.check.Spawned(5, 5, up, 0)
	s := combat.Shot{ID: 1, Shooter: 5, Origin: up.Position.Add(mgl64.Vec3{4.9, 1.9, 0}), Direction: mgl64.Vec3{1, 0, 0}, Time: 1}
	if v := f.check.Fired(s, 1.05); v != combat.RejectImpossible {
		t.Errorf("a shot from a tank 40 m up: %v, want %v", v, combat.RejectImpossible)
	}
}

// TestJudgeCountsEachVerdict: the referee tallies every verdict under its name, for
// HostStats.Judged and /metrics.
func TestJudgeCountsEachVerdict(t *testing.T) {
	f, r := refereeFight(t, combat.Rules{})
	s, c := f.shoot(t, 1, 5)
	r.fire(s, 5.1)
	r.claim(c, c.Time+0.1, f.link)
	late := c
	late.Shot, late.Fired.ID = 2, 2
	late.Fired.Time = 9
	r.fire(late.Fired, 9.1)
	r.claim(late, c.Time+1, f.link) // its impact before it was fired
	r.Message(7, nil, 10, netLink())
	got := map[string]uint64{}
	for _, j := range r.JudgeCounts(nil) {
		got[j.Verdict] = j.N
	}
	if len(got) != int(combat.NumReasons)+1 || got["accepted"] != 1 || got["impossible_time_or_range"] != 1 || got["refused_message"] != 1 {
		t.Errorf("counts %v, want one accepted, one impossible, one refused message and every verdict named", got)
	}
}

// TestStaleBasisAllowsLostUpdates: a basis is stale only when several newer updates
// were due at the shooter before the rewind cap. An honest shooter on a lossy link
// may have missed one or a few and claims on the last it got; a claim naming an
// update five behind is the cheat of TestOldNamedBasisRefused.
func TestStaleBasisAllowsLostUpdates(t *testing.T) {
	f := newFight(t)
	const claimAfter = 8 // the claim is made when update 8 (t = 4 s) is due plus the cap
	due := f.updates[claimAfter].at + f.link.Latency
	for _, tc := range []struct {
		behind int // how many updates the named basis is behind update 8
		stale  bool
	}{{0, false}, {1, false}, {4, false}, {staleBasisUpdates, true}, {7, true}} {
		basis := f.updates[claimAfter-tc.behind]
		c := combat.Claim{Shooter: 1, Target: 2, Time: due + DefaultMaxRewind + 0.01}
		c.Applied[0] = combat.Applied{Update: basis.s.Time, At: basis.at + f.link.Latency}
		if got := f.check.staleBasis(c, f.check.actors[2], f.check.shooterView(c, f.link)); got != tc.stale {
			t.Errorf("a basis %d updates behind: stale %v, want %v", tc.behind, got, tc.stale)
		}
	}
}
