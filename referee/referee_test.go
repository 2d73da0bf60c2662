package referee

import (
	"fmt"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/net"
)

// refereeFight is a fight judged by a referee: shooter on team 1, target on team 2.
func refereeFight(t *testing.T, rules combat.Rules) (*fight, *Referee) {
	t.Helper()
	return refereeFightOf(t, rules, fighter{1, "shooter"}, fighter{2, "target"})
}

// fighter is the player a fight's tank belongs to.
type fighter struct {
	owner uint32
	name  string
}

// refereeFightOf is refereeFight with the shooter's and the target's players given.
func refereeFightOf(t *testing.T, rules combat.Rules, shooter, target fighter) (*fight, *Referee) {
	t.Helper()
	f := newFight(t)
	r, err := New(f.m, rules, f.reckon)
	if err != nil {
		t.Fatal(err)
	}
	r.Spawned(1, shooter.owner, shooter.name, 1, f.shooter, 0)
	r.Spawned(2, target.owner, target.name, 2, f.target, 0)
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
		if v := r.fire(s, fired+0.1); v != combat.Accepted {
			t.Fatalf("shot %d refused: %v", i+1, v)
		}
		if v := r.claim(c, c.Time+0.1, f.link); v.Reason != combat.Accepted {
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
	if h, alive := r.health(2); h != 0 || alive {
		t.Errorf("target health %v alive %v after two 60-point hits", h, alive)
	}
	sc := r.Scores(nil)
	if len(sc) != 2 || sc[0].Name != "shooter" || sc[0].Kills != 1 || sc[1].Deaths != 1 {
		t.Errorf("scoreboard %+v", sc)
	}
	if len(sc) == 2 && (sc[0].Shots != 2 || sc[0].Hits != 2 || sc[1].Shots != 0 || sc[1].Hits != 0) {
		t.Errorf("shots and hits %+v, want the shooter 2 of 2, the target none", sc)
	}
	// A third shot at the wreck is refused: the target is destroyed.
	s, c := f.shoot(t, 3, 7)
	r.fire(s, 7.1)
	if v := r.claim(c, c.Time+0.1, f.link); v.Reason != combat.RejectTargetDestroyed {
		t.Errorf("claim on a wreck: %v", v.Reason)
	}
}

func TestRefereeSparesTeammates(t *testing.T) {
	f, r := refereeFight(t, combat.Rules{})
	r.Spawned(3, 3, "mate", 1, f.target, 0) // a teammate of the shooter, no updates
	r.tanks[2].team = 1                     // the target joins the shooter's team
	s, c := f.shoot(t, 1, 5)
	r.fire(s, 5.1)
	if v := r.claim(c, c.Time+0.1, f.link); v.Reason != combat.Accepted {
		t.Fatal(v.Reason)
	}
	if h, alive := r.health(2); h != combat.DefaultMaxHealth || !alive {
		t.Errorf("a teammate's shell took the target to %v", h)
	}
}

func TestRefereeEndsAtTheLimitsAndRestarts(t *testing.T) {
	f, r := refereeFight(t, combat.Rules{NoArmour: true, Damage: 100, ScoreLimit: 1, ScoreboardTime: 4, TimeLimit: 60})
	s, c := f.shoot(t, 1, 5)
	r.fire(s, 5.1)
	r.claim(c, c.Time+0.1, f.link)
	over, until := r.ended()
	if !over || until < c.Time+4 {
		t.Fatalf("after the score limit: over %v until %v", over, until)
	}
	if v := r.fire(combat.Shot{ID: 2, Shooter: 1, Origin: s.Origin, Direction: s.Direction, Time: until - 1}, until-1); v == combat.Accepted {
		t.Error("a shot between matches was accepted")
	}
	r.step(until + 0.01)
	if over, _ := r.ended(); over {
		t.Fatal("the next match did not start")
	}
	for _, sc := range r.Scores(nil) {
		if sc.Kills != 0 || sc.Deaths != 0 {
			t.Errorf("scores not cleared: %+v", sc)
		}
	}
	if h, alive := r.health(2); h != combat.DefaultMaxHealth || !alive {
		t.Errorf("the wreck was not restored: %v %v", h, alive)
	}
	// The time limit ends the next one.
	r.step(until + 60.5)
	if over, _ := r.ended(); !over {
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

// TestJudgeCountsRounds: the judge counts each round once, when it ends at the score
// limit and again at the time limit, whichever of its calls sees the end first.
func TestJudgeCountsRounds(t *testing.T) {
	f, r := refereeFight(t, combat.Rules{NoArmour: true, Damage: 100, ScoreLimit: 1, ScoreboardTime: 4, TimeLimit: 60})
	j := r
	j.Tick(1)
	if n := j.Rounds(); n != 0 {
		t.Fatalf("%d rounds before any kill", n)
	}
	s, c := f.shoot(t, 1, 5)
	r.fire(s, 5.1)
	r.claim(c, c.Time+0.1, f.link)
	j.Outbox(nil)
	j.Tick(c.Time + 0.2)
	if n := j.Rounds(); n != 1 {
		t.Fatalf("%d rounds after the score limit, want 1", n)
	}
	_, until := r.ended()
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
	f, r := refereeFight(t, combat.Rules{NoArmour: true, Damage: 100, ScoreLimit: 5, ScoreboardTime: 4, TimeLimit: 60})
	j := r
	j.Tick(1)
	s, c := f.shoot(t, 1, 5)
	r.fire(s, 5.1)
	r.claim(c, c.Time+0.1, f.link)
	if sc := r.Scores(nil); len(sc) == 0 || sc[0].Kills != 1 {
		t.Fatalf("scores %+v, want a kill", sc)
	}
	j.Tick(59)
	j.StartRound()
	if n := j.Rounds(); n != 0 {
		t.Fatalf("%d rounds right after StartRound, want 0", n)
	}
	// The round in play reaches its limit before the judge's next Tick: not counted.
	r.step(60)
	j.Outbox(nil)
	if over, _ := r.ended(); !over || j.Rounds() != 0 {
		t.Fatalf("old round at its limit before the Tick: over %v, %d rounds; want over, none counted", over, j.Rounds())
	}
	const start = 61.0
	j.Tick(start)
	if over, _ := r.ended(); over || j.Rounds() != 0 {
		t.Fatalf("at the restart: over %v, %d rounds; want a round in play and none counted", over, j.Rounds())
	}
	for _, sc := range r.Scores(nil) {
		if sc.Kills != 0 || sc.Deaths != 0 {
			t.Errorf("score %+v after the restart, want clean", sc)
		}
	}
	if h, alive := r.health(2); !alive || h != r.Rules().MaxHealth {
		t.Errorf("target at %v (alive %v) after the restart, want repaired", h, alive)
	}
	if rem := r.remaining(start); rem != 60 {
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

// TestSpawnProtection: a hit on a tank that spawned less than SpawnProtection ago
// does no damage, unless the tank has fired since or driven away; without protection
// it does.
func TestSpawnProtection(t *testing.T) {
	for _, c := range []struct {
		name   string
		rules  combat.Rules
		fired  bool
		far    float64 // how far the target has been from its spawn, m
		health float64
	}{
		{"protected", combat.Rules{NoArmour: true, Damage: 60, SpawnProtection: 10}, false, 0, 100},
		{"fired first", combat.Rules{NoArmour: true, Damage: 60, SpawnProtection: 10}, true, 0, 40},
		{"drove away", combat.Rules{NoArmour: true, Damage: 60, SpawnProtection: 10}, false, combat.SpawnProtectionReach, 40},
		{"no protection", combat.Rules{NoArmour: true, Damage: 60, SpawnProtection: combat.Off}, false, 0, 40},
		{"protection over", combat.Rules{NoArmour: true, Damage: 60, SpawnProtection: 1}, false, 0, 40},
	} {
		f, r := refereeFight(t, c.rules)
		// The fight's target drives across the field; its distance from its spawn is
		// the case's.
		r.tanks[2].fired, r.tanks[2].far = c.fired, c.far
		s, cl := f.shoot(t, 1, 3)
		r.fire(s, 3.1)
		if v := r.claim(cl, cl.Time+0.1, f.link); v.Reason != combat.Accepted {
			t.Fatalf("%s: claim refused: %v", c.name, v.Reason)
		}
		if h, _ := r.Health(2); h != c.health {
			t.Errorf("%s: target health %v after a 60-point hit, want %v", c.name, h, c.health)
		}
	}
}

// TestSpawnProtectionEndsAfterADrive: a tank under spawn protection keeps it while it
// turns and settles on its place, and loses it once it has driven
// combat.SpawnProtectionReach away, even if it comes back.
func TestSpawnProtectionEndsAfterADrive(t *testing.T) {
	f, r := refereeFight(t, combat.Rules{SpawnProtection: 10})
	s := f.shooter
	r.Spawned(7, 9, "newcomer", 1, s, 1)
	step := func(dx, at float64) {
		u := s
		u.Position = s.Position.Add(mgl64.Vec3{dx, 0, 0})
		u.Time = at
		r.Relayed(7, u, at)
	}
	step(5, 1.5)
	if !r.protected(r.tanks[7], 2) {
		t.Error("5 m from its spawn, the tank lost its protection")
	}
	step(combat.SpawnProtectionReach+1, 2.5)
	step(0, 3)
	if r.protected(r.tanks[7], 3) {
		t.Errorf("after a drive %v m away and back, the tank is still protected", combat.SpawnProtectionReach+1)
	}
}

// TestProtected: spawn protection lasts its time, and ends when the tank fires or
// drives combat.SpawnProtectionReach away.
func TestProtected(t *testing.T) {
	r, err := combat.Rules{SpawnProtection: 3}.WithDefaults()
	if err != nil {
		t.Fatal(err)
	}
	off, _ := combat.Rules{SpawnProtection: combat.Off}.WithDefaults()
	for _, c := range []struct {
		rules combat.Rules
		age   float64
		fired bool
		far   float64
		want  bool
	}{
		{r, 0, false, 0, true},
		{r, 2.9, false, combat.SpawnProtectionReach - 1, true},
		{r, 3, false, 0, false},
		{r, 1, true, 0, false},
		{r, 1, false, combat.SpawnProtectionReach, false},
		{off, 0, false, 0, false},
	} {
		if got := c.rules.Protected(c.age, c.fired, c.far); got != c.want {
			t.Errorf("Protected(%v s, fired %v, %v m) under %v s = %v, want %v", c.age, c.fired, c.far, c.rules.SpawnProtection, got, c.want)
		}
	}
}

// TestScoresCarryPings: the board carries each line's link as the host last
// reported it (a player's round trip, the host's own player, its bots, nothing for a
// player the host no longer lists), and is announced again for the pings alone only
// when they moved and pingRefresh has passed.
func TestScoresCarryPings(t *testing.T) {
	f, r := refereeFightOf(t, combat.Rules{}, fighter{3, "ann"}, fighter{0, "host"})
	r.Spawned(40, 0, "Abrams", 2, f.target, 0)
	r.Spawned(41, 9, "gone", 1, f.target, 0)
	r.events(nil)
	pings := func(evs []combat.Event) map[string]string {
		var last *combat.Event
		for i := range evs {
			if evs[i].Kind == combat.EventScores {
				last = &evs[i]
			}
		}
		if last == nil {
			return nil
		}
		out := map[string]string{}
		for _, s := range last.Scores {
			out[s.Name] = fmt.Sprint(s.Link, " ", s.RTT)
		}
		return out
	}
	links := []net.PlayerLink{{ID: 0, Name: "host", InProcess: true}}
	r.Links(links, 15) // the host's own player and its bots: known, not announced for
	if got := pings(r.events(nil)); got != nil {
		t.Errorf("links in process announced: %v", got)
	}
	r.announceScores(15) // the next board carries them
	if got := pings(r.events(nil)); got["host"] != fmt.Sprint(combat.LinkHost, " 0s") || got["Abrams"] != fmt.Sprint(combat.LinkBot, " 0s") {
		t.Errorf("the next board's links %v, want the host's own and a bot", got)
	}
	links = append(links, net.PlayerLink{ID: 3, Name: "ann", RTT: 80 * time.Millisecond})
	r.Links(links, 20) // within pingRefresh of the last board: kept for the next
	if got := pings(r.events(nil)); got != nil {
		t.Errorf("pings announced %v s after the last board: %v", 5.0, got)
	}
	r.Links(links, 30)
	want := map[string]string{"ann": fmt.Sprint(combat.LinkMeasured, " ", 80*time.Millisecond),
		"host": fmt.Sprint(combat.LinkHost, " 0s"), "Abrams": fmt.Sprint(combat.LinkBot, " 0s"), "gone": fmt.Sprint(combat.LinkUnknown, " 0s")}
	if got := pings(r.events(nil)); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("board's links %v, want %v", got, want)
	}
	links[1].RTT = 90 * time.Millisecond // within the change that matters
	r.Links(links, 45)
	if got := pings(r.events(nil)); got != nil {
		t.Errorf("a ping that moved 10 ms was announced: %v", got)
	}
	links[1].RTT = 300 * time.Millisecond
	r.Links(links, 46)
	if got := pings(r.events(nil)); got["ann"] != fmt.Sprint(combat.LinkMeasured, " ", 300*time.Millisecond) {
		t.Errorf("a ping that tripled: board %v", got)
	}
	if sc := r.Scores(nil); len(sc) != 4 {
		t.Errorf("Scores: %d lines, want 4", len(sc))
	}
}
