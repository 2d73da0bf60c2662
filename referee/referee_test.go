package referee

import (
	"testing"

	"github.com/treadline/treadline/combat"
)

// refereeFight is a fight judged by a referee: shooter on team 1, target on team 2.
func refereeFight(t *testing.T, rules combat.Rules) (*fight, *Referee) {
	t.Helper()
	f := newFight(t)
	r, err := New(f.m, rules, f.reckon)
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
	f, r := refereeFight(t, combat.Rules{NoArmour: true, Damage: 60, Reload: 1, ScoreLimit: 5})
	var evs []combat.Event
	for i, fired := range []float64{3, 5} {
		s, c := f.shoot(t, uint32(i+1), fired)
		if v := r.Fire(s, fired+0.1); v != combat.Accepted {
			t.Fatalf("shot %d refused: %v", i+1, v)
		}
		if v := r.Claim(c, c.Time+0.1, f.link); v.Reason != combat.Accepted {
			t.Fatalf("claim %d refused: %v", i+1, v.Reason)
		}
	}
	evs = r.events(evs[:0])
	var hits, destroys, fires int
	var health []float64
	for _, e := range evs {
		switch e.Kind {
		case combat.EventFire:
			fires++
		case combat.EventHit:
			hits++
			health = append(health, e.Health)
		case combat.EventDestroy:
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
	if v := r.Claim(c, c.Time+0.1, f.link); v.Reason != combat.RejectTargetDestroyed {
		t.Errorf("claim on a wreck: %v", v.Reason)
	}
}

func TestRefereeSparesTeammates(t *testing.T) {
	f, r := refereeFight(t, combat.Rules{})
	r.Spawned(3, 3, "mate", 1, f.target, 0) // a teammate of the shooter, no updates
	r.tanks[2].team = 1                     // the target joins the shooter's team
	s, c := f.shoot(t, 1, 5)
	r.Fire(s, 5.1)
	if v := r.Claim(c, c.Time+0.1, f.link); v.Reason != combat.Accepted {
		t.Fatal(v.Reason)
	}
	if h, alive := r.Health(2); h != combat.DefaultMaxHealth || !alive {
		t.Errorf("a teammate's shell took the target to %v", h)
	}
}

func TestRefereeEndsAtTheLimitsAndRestarts(t *testing.T) {
	f, r := refereeFight(t, combat.Rules{NoArmour: true, Damage: 100, ScoreLimit: 1, ScoreboardTime: 4, TimeLimit: 60})
	s, c := f.shoot(t, 1, 5)
	r.Fire(s, 5.1)
	r.Claim(c, c.Time+0.1, f.link)
	over, until := r.Over()
	if !over || until < c.Time+4 {
		t.Fatalf("after the score limit: over %v until %v", over, until)
	}
	if v := r.Fire(combat.Shot{ID: 2, Shooter: 1, Origin: s.Origin, Direction: s.Direction, Time: until - 1}, until-1); v == combat.Accepted {
		t.Error("a shot between matches was accepted")
	}
	r.Tick(until + 0.01)
	if over, _ := r.Over(); over {
		t.Fatal("the next match did not start")
	}
	for _, sc := range r.Scores(nil) {
		if sc.Kills != 0 || sc.Deaths != 0 {
			t.Errorf("scores not cleared: %+v", sc)
		}
	}
	if h, alive := r.Health(2); h != combat.DefaultMaxHealth || !alive {
		t.Errorf("the wreck was not restored: %v %v", h, alive)
	}
	// The time limit ends the next one.
	r.Tick(until + 60.5)
	if over, _ := r.Over(); !over {
		t.Error("the time limit passed without ending the match")
	}
	var last combat.Event
	for _, e := range r.events(nil) {
		if e.Kind == combat.EventScores {
			last = e
		}
	}
	if !last.Over || len(last.Scores) != 2 {
		t.Errorf("last scoreboard event %+v", last)
	}
}

// TestRefereeCountsRounds: the referee counts each round once, when it ends at the
// score limit and again at the time limit, whichever of its calls sees the end first.
func TestRefereeCountsRounds(t *testing.T) {
	f, r := refereeFight(t, combat.Rules{NoArmour: true, Damage: 100, ScoreLimit: 1, ScoreboardTime: 4, TimeLimit: 60})
	rounds := func() int { return r.Counts().Rounds }
	r.Tick(1)
	if n := rounds(); n != 0 {
		t.Fatalf("%d rounds before any kill", n)
	}
	s, c := f.shoot(t, 1, 5)
	r.Fire(s, 5.1)
	r.Claim(c, c.Time+0.1, f.link)
	r.Outbox(nil)
	r.Tick(c.Time + 0.2)
	if n := rounds(); n != 1 {
		t.Fatalf("%d rounds after the score limit, want 1", n)
	}
	_, until := r.Over()
	r.Tick(until + 0.01)
	if n := rounds(); n != 1 {
		t.Fatalf("%d rounds once the next began, want 1", n)
	}
	r.Tick(until + 60.5)
	if n := rounds(); n != 2 {
		t.Errorf("%d rounds after the next one's time limit, want 2", n)
	}
}
