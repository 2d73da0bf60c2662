package game

import (
	"testing"

	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/game/gametest"
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
	for now := 0.0; now < 1; now += 1.0 / 30 {
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
