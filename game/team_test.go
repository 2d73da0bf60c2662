package game

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/referee"
	"github.com/treadline/treadline/terrain"
)

// TestJoinerPlacedOnTheSmallerTeam: a player who joins a hosted match asking for no
// team (a joiner's default) plays on the smaller team, is told so in one notice, and
// the scoreboard and every peer show that team.
func TestJoinerPlacedOnTheSmallerTeam(t *testing.T) {
	valley, err := terrain.Load("../assets/maps/valley.json")
	if err != nil {
		t.Fatal(err)
	}
	judge, err := referee.New(valley, combat.Rules{}, DeadReckoning().Reckon)
	if err != nil {
		t.Fatal(err)
	}
	judge.AssignTeams()
	rig := newRig(t, gametest.Config{Judge: judge})
	// Seven bots: four on team 1, three on team 2.
	bots := mustMatch(t, Config{Map: valley, NoPlayer: true, Bots: 7, Seed: 5}, join(t, rig))
	me := mustMatch(t, Config{Map: valley, Name: "me", Seed: 6}, join(t, rig))
	// The first step comes a while after the join (a window opening, a clock
	// settling): what the match was told while joining shows from then.
	for now := 5.0; now < 6; now += 1.0 / 30 {
		rig.SetNow(now)
		mustStep(t, bots, now, physics.Input{})
		mustStep(t, me, now, physics.Input{})
	}
	var snap Snapshot
	me.Snapshot(&snap)
	if snap.Self < 0 {
		t.Fatal("no tank of the player's own")
	}
	if got := snap.Tanks[snap.Self].Team; got != 2 {
		t.Errorf("the joiner is on team %d, want 2 (three bots against four)", got)
	}
	told := 0
	for _, n := range snap.Notices {
		if n.Kind == NoticeTeam {
			told++
			if s := n.String(); s != "You are on team Yellow" {
				t.Errorf("the team notice reads %q, want %q", s, "You are on team Yellow")
			}
			if n.Time < 5 {
				t.Errorf("the team notice is dated %.1f s, before the match's first step at 5 s", n.Time)
			}
		}
	}
	if told != 1 {
		t.Errorf("%d team notices, want 1", told)
	}
	for _, sc := range judge.Scores(nil) {
		if sc.Name == "me" && sc.Team != 2 {
			t.Errorf("the scoreboard puts the joiner on team %d, want 2", sc.Team)
		}
	}
	var bs Snapshot
	bots.Snapshot(&bs)
	for _, tv := range bs.Tanks {
		if tv.Name == "me" && tv.Team != 2 {
			t.Errorf("the host's peer shows the joiner on team %d, want 2", tv.Team)
		}
	}
}

// TestTeamName: teams are named by the colour their tanks wear, wrapping.
func TestTeamName(t *testing.T) {
	for _, c := range []struct {
		team int
		want string
	}{{0, "Red"}, {1, "Blue"}, {2, "Yellow"}, {3, "Green"}, {4, "Red"}, {-1, "Green"}} {
		if got := TeamName(c.team); got != c.want {
			t.Errorf("TeamName(%d) = %q, want %q", c.team, got, c.want)
		}
	}
}

// TestSpawnProtectionShown: a tank's spawn protection shows on its own peer and on
// the others', as the referee rules it: from its spawn, until it fires.
func TestSpawnProtectionShown(t *testing.T) {
	t.Parallel()
	valley, err := terrain.Load("../assets/maps/valley.json")
	if err != nil {
		t.Fatal(err)
	}
	judge, err := referee.New(valley, combat.Rules{SpawnProtection: 10}, DeadReckoning().Reckon)
	if err != nil {
		t.Fatal(err)
	}
	rig := newRig(t, gametest.Config{Judge: judge})
	a := mustMatch(t, Config{Map: valley, Name: "a", Team: 1, Seed: 1, Rules: combat.Rules{SpawnProtection: 10}}, join(t, rig))
	now := 0.0
	var b *Match
	step := func(until float64) {
		for ; now < until; now += 1.0 / 30 {
			rig.SetNow(now)
			mustStep(t, a, now, physics.Input{})
			if b != nil {
				mustStep(t, b, now, physics.Input{})
			}
		}
	}
	protected := func(m *Match, name string) bool {
		var snap Snapshot
		m.Snapshot(&snap)
		for _, tv := range snap.Tanks {
			if tv.Name == name {
				return tv.Protected
			}
		}
		t.Fatalf("no tank %q", name)
		return false
	}
	step(3)
	b = mustMatch(t, Config{Map: valley, Name: "b", Team: 2, Seed: 2, Rules: combat.Rules{SpawnProtection: 10}}, join(t, rig))
	step(4)
	if !protected(b, "b") || !protected(a, "b") {
		t.Errorf("1 s after its spawn, b's protection shows on b %v, on a %v; want both", protected(b, "b"), protected(a, "b"))
	}
	b.Fire()
	step(5)
	if protected(b, "b") || protected(a, "b") {
		t.Errorf("after b fired, its protection shows on b %v, on a %v; want neither", protected(b, "b"), protected(a, "b"))
	}
	step(11)
	if protected(a, "a") {
		t.Error("a is still protected 11 s after its spawn, past the rules' 10 s")
	}
}

// TestSpawnFacesTheFight: a tank respawns facing its nearest enemy, as this peer
// shows the enemies, not the map's middle.
func TestSpawnFacesTheFight(t *testing.T) {
	t.Parallel()
	valley, err := terrain.Load("../assets/maps/valley.json")
	if err != nil {
		t.Fatal(err)
	}
	judge, err := referee.New(valley, combat.Rules{}, DeadReckoning().Reckon)
	if err != nil {
		t.Fatal(err)
	}
	rig := newRig(t, gametest.Config{Judge: judge})
	bots := mustMatch(t, Config{Map: valley, NoPlayer: true, Bots: 7, Seed: 3}, join(t, rig))
	me := mustMatch(t, Config{Map: valley, Name: "me", Team: 2, Seed: 4}, join(t, rig))
	for now := 0.0; now < 2; now += 1.0 / 30 {
		rig.SetNow(now)
		mustStep(t, bots, now, physics.Input{})
		mustStep(t, me, now, physics.Input{})
	}
	for i := range 5 {
		me.respawnLocal(me.self)
		p := me.self.body.Pose()
		at := mgl64.Vec2{p.Position[0], p.Position[2]}
		nearest, best := mgl64.Vec3{}, math.Inf(1)
		for _, e := range me.enemiesOf(2, me.self) {
			if d := at.Sub(mgl64.Vec2{e[0], e[2]}).Len(); d < best {
				nearest, best = e, d
			}
		}
		if math.IsInf(best, 1) {
			t.Fatal("no enemy in the match")
		}
		want := geom.Heading(nearest.Sub(p.Position))
		if got := geom.Yaw(p.Orientation); math.Abs(geom.WrapAngle(got-want)) > 0.01 {
			t.Errorf("respawn %d: the tank faces %.2f rad, its nearest enemy (%.0f m) is at %.2f rad", i, got, best, want)
		}
	}
}
