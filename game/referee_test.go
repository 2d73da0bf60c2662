package game

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/physics"
)

// refereeFight is a fight judged by a referee: shooter on team 1, target on team 2.
func refereeFight(t *testing.T, rules Rules) (*fight, *Referee) {
	t.Helper()
	f := newFight(t)
	r, err := NewReferee(f.m, rules, f.reckon)
	if err != nil {
		t.Fatal(err)
	}
	r.Spawned(1, 1, "shooter", 1, f.shooter, 0)
	r.Spawned(2, 2, "target", 2, f.target, 0)
	for _, u := range f.updates[1:] {
		r.Relayed(2, u.s, u.at)
		a := f.shooter
		a.Time = u.at - 0.02
		r.Relayed(1, a, u.at)
	}
	f.check = r.check
	return f, r
}

func TestRefereeDamagesDestroysAndScores(t *testing.T) {
	f, r := refereeFight(t, Rules{NoArmour: true, Damage: 60, Reload: 1, ScoreLimit: 5})
	var evs []CombatEvent
	for i, fired := range []float64{3, 5} {
		s, c := f.shoot(t, uint32(i+1), fired)
		if v := r.Fire(s, fired+0.1); v != Accepted {
			t.Fatalf("shot %d refused: %v", i+1, v)
		}
		if v := r.Claim(c, c.Time+0.1, f.link); v.Reason != Accepted {
			t.Fatalf("claim %d refused: %v", i+1, v.Reason)
		}
	}
	evs = r.Events(evs[:0])
	var hits, destroys, fires int
	var health []float64
	for _, e := range evs {
		switch e.Kind {
		case CombatFire:
			fires++
		case CombatHit:
			hits++
			health = append(health, e.Health)
		case CombatDestroy:
			destroys++
			if e.Target != 2 || e.Shot.Shooter != 1 {
				t.Errorf("destroy event %+v", e)
			}
		}
	}
	if fires != 2 || hits != 2 || destroys != 1 || len(health) != 2 || health[0] != 40 || health[1] != 0 {
		t.Fatalf("fires %d hits %d destroys %d health %v; want 2 2 1 [40 0]", fires, hits, destroys, health)
	}
	if h, alive := r.Health(2); h != 0 || alive {
		t.Errorf("target health %v alive %v after two 60-point hits", h, alive)
	}
	sc := r.Scores(nil)
	if len(sc) != 2 || sc[0].Name != "shooter" || sc[0].Kills != 1 || sc[1].Deaths != 1 {
		t.Errorf("scoreboard %+v", sc)
	}
	// A third shot at the wreck is refused: the target is destroyed.
	s, c := f.shoot(t, 3, 7)
	r.Fire(s, 7.1)
	if v := r.Claim(c, c.Time+0.1, f.link); v.Reason != RejectTargetDestroyed {
		t.Errorf("claim on a wreck: %v", v.Reason)
	}
}

func TestRefereeSparesTeammates(t *testing.T) {
	f, r := refereeFight(t, Rules{})
	r.Spawned(3, 3, "mate", 1, f.target, 0) // a teammate of the shooter, no updates
	r.tanks[2].team = 1                     // the target joins the shooter's team
	s, c := f.shoot(t, 1, 5)
	r.Fire(s, 5.1)
	if v := r.Claim(c, c.Time+0.1, f.link); v.Reason != Accepted {
		t.Fatal(v.Reason)
	}
	if h, alive := r.Health(2); h != DefaultMaxHealth || !alive {
		t.Errorf("a teammate's shell took the target to %v", h)
	}
}

func TestRefereeEndsAtTheLimitsAndRestarts(t *testing.T) {
	f, r := refereeFight(t, Rules{NoArmour: true, Damage: 100, ScoreLimit: 1, ScoreboardTime: 4, TimeLimit: 60})
	s, c := f.shoot(t, 1, 5)
	r.Fire(s, 5.1)
	r.Claim(c, c.Time+0.1, f.link)
	over, until := r.Over()
	if !over || until < c.Time+4 {
		t.Fatalf("after the score limit: over %v until %v", over, until)
	}
	if v := r.Fire(Shot{ID: 2, Shooter: 1, Origin: s.Origin, Direction: s.Direction, Time: until - 1}, until-1); v == Accepted {
		t.Error("a shot between matches was accepted")
	}
	r.Step(until + 0.01)
	if over, _ := r.Over(); over {
		t.Fatal("the next match did not start")
	}
	for _, sc := range r.Scores(nil) {
		if sc.Kills != 0 || sc.Deaths != 0 {
			t.Errorf("scores not cleared: %+v", sc)
		}
	}
	if h, alive := r.Health(2); h != DefaultMaxHealth || !alive {
		t.Errorf("the wreck was not restored: %v %v", h, alive)
	}
	// The time limit ends the next one.
	r.Step(until + 60.5)
	if over, _ := r.Over(); !over {
		t.Error("the time limit passed without ending the match")
	}
	var last CombatEvent
	for _, e := range r.Events(nil) {
		if e.Kind == CombatScores {
			last = e
		}
	}
	if !last.Over || len(last.Scores) != 2 {
		t.Errorf("last scoreboard event %+v", last)
	}
}

func TestGunnerLeadsAndHitsAMovingTank(t *testing.T) {
	m := valley(t)
	floor, _ := m.Landmark("floor")
	h, _ := m.HeightAt(floor.X, floor.Z)
	w, err := physics.NewWorld(physics.MapConfig(m))
	if err != nil {
		t.Fatal(err)
	}
	tank, err := w.AddTank(physics.TankSpec{}, floor.X, floor.Z, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []Difficulty{Hard, Normal, Easy} {
		g := NewGunner(m, d, 5)
		hits, shots := 0, 0
		// A target crossing at 8 m/s, 120 m ahead; the gunner's tank stands still.
		start := mgl64.Vec3{floor.X + 120, h, floor.Z - 40}
		vel := mgl64.Vec3{0, 0, 8}
		loaded := 0.0
		for frame := 0; frame < 600; frame++ {
			now := float64(frame) / 60
			pos := start.Add(vel.Mul(now))
			pos[1], _ = m.HeightAt(pos[0], pos[2])
			aim := g.Aim(now, tank.Pose(), []Target{{ID: 2, Position: pos, Velocity: vel, Enemy: true}}, now >= loaded)
			if !aim.Engaged {
				t.Fatalf("%v: target in plain sight not engaged", d)
			}
			tank.SetInput(physics.Input{AimYaw: aim.AimYaw, GunElevation: aim.GunElevation})
			w.Step(1.0 / 60)
			if !aim.Fire {
				continue
			}
			if now-g.seenAt < g.skill.reaction {
				t.Errorf("%v fired %.2f s after seeing its target, before its reaction time", d, now-g.seenAt)
			}
			shots++
			loaded = now + 1
			p := tank.Pose()
			o, dir := Muzzle(p.Position, p.Orientation, p.Turret, p.Gun)
			s := Shot{ID: 1, Shooter: 1, Origin: o, Direction: dir, Time: now}
			for ft := now; ft < now+2; ft += 1.0 / 60 {
				tp := start.Add(vel.Mul(ft + 1.0/60))
				tp[1], _ = m.HeightAt(tp[0], tp[2])
				imp := Sweep(m, s, ft, ft+1.0/60, []HullPose{{Actor: 2, Position: tp, Orientation: mgl64.QuatIdent()}})
				if imp.Kind == ImpactTank {
					hits++
				}
				if imp.Kind != ImpactNone {
					break
				}
			}
		}
		t.Logf("%v: %d of %d shots hit", d, hits, shots)
		if shots < 3 {
			t.Errorf("%v: only %d shots in 10 s", d, shots)
		}
		if d == Hard && hits*2 < shots {
			t.Errorf("hard gunner hit %d of %d shots at a steady crossing target", hits, shots)
		}
	}
	if _, err := ParseDifficulty("brutal"); err == nil {
		t.Error("unknown difficulty accepted")
	}
	if d, err := ParseDifficulty("hard"); err != nil || d != Hard || d.String() != "hard" {
		t.Errorf("hard: %v %v", d, err)
	}
}

// TestJudgeCountsRounds: the judge counts each round once, when it ends at the score
// limit and again at the time limit, whichever of its calls sees the end first.
func TestJudgeCountsRounds(t *testing.T) {
	f, r := refereeFight(t, Rules{NoArmour: true, Damage: 100, ScoreLimit: 1, ScoreboardTime: 4, TimeLimit: 60})
	j := &Judge{ref: r}
	j.Tick(1)
	if n := j.Rounds(); n != 0 {
		t.Fatalf("%d rounds before any kill", n)
	}
	s, c := f.shoot(t, 1, 5)
	r.Fire(s, 5.1)
	r.Claim(c, c.Time+0.1, f.link)
	j.Outbox(nil)
	j.Tick(c.Time + 0.2)
	if n := j.Rounds(); n != 1 {
		t.Fatalf("%d rounds after the score limit, want 1", n)
	}
	_, until := r.Over()
	j.Tick(until + 0.01)
	if n := j.Rounds(); n != 1 {
		t.Fatalf("%d rounds once the next began, want 1", n)
	}
	j.Tick(until + 60.5)
	if n := j.Rounds(); n != 2 {
		t.Errorf("%d rounds after the next one's time limit, want 2", n)
	}
}

// TestJudgeStartRound: StartRound sets the count back to zero at once, ignores a
// round that ends before the next Tick, and at that Tick starts a fresh round whose
// time limit runs from then, with clean scores and repaired tanks.
func TestJudgeStartRound(t *testing.T) {
	f, r := refereeFight(t, Rules{NoArmour: true, Damage: 100, ScoreLimit: 5, ScoreboardTime: 4, TimeLimit: 60})
	j := &Judge{ref: r}
	j.Tick(1)
	s, c := f.shoot(t, 1, 5)
	r.Fire(s, 5.1)
	r.Claim(c, c.Time+0.1, f.link)
	if sc := r.Scores(nil); len(sc) == 0 || sc[0].Kills != 1 {
		t.Fatalf("scores %+v, want a kill", sc)
	}
	j.Tick(59)
	j.StartRound()
	if n := j.Rounds(); n != 0 {
		t.Fatalf("%d rounds right after StartRound, want 0", n)
	}
	// The round in play reaches its limit before the judge's next Tick: not counted.
	r.Step(60)
	j.Outbox(nil)
	if over, _ := r.Over(); !over || j.Rounds() != 0 {
		t.Fatalf("old round at its limit before the Tick: over %v, %d rounds; want over, none counted", over, j.Rounds())
	}
	const start = 61.0
	j.Tick(start)
	if over, _ := r.Over(); over || j.Rounds() != 0 {
		t.Fatalf("at the restart: over %v, %d rounds; want a round in play and none counted", over, j.Rounds())
	}
	for _, sc := range r.Scores(nil) {
		if sc.Kills != 0 || sc.Deaths != 0 {
			t.Errorf("score %+v after the restart, want clean", sc)
		}
	}
	if h, alive := r.Health(2); !alive || h != r.Rules().MaxHealth {
		t.Errorf("target at %v (alive %v) after the restart, want repaired", h, alive)
	}
	if rem := r.Remaining(start); rem != 60 {
		t.Errorf("%v s left at the restart, want the whole 60", rem)
	}
	for _, tick := range []struct {
		into float64 // s into the fresh round
		want int
	}{{59.9, 0}, {60, 1}} {
		j.Tick(start + tick.into)
		if n := j.Rounds(); n != tick.want {
			t.Errorf("%d rounds %v s into the fresh round of 60, want %d", n, tick.into, tick.want)
		}
	}
}
