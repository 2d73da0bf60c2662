package render

import (
	"fmt"
	"testing"

	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/game"
)

// TestFeedSumsUpKillBursts: four or more kills in a row within 2 s are one line
// counting them by the shooters' teams, most first; fewer, or slower, or broken by
// another notice, stay one line each.
func TestFeedSumsUpKillBursts(t *testing.T) {
	kill := func(at float64, team int) game.Notice {
		return game.Notice{Kind: game.NoticeKill, Time: at, Who: fmt.Sprintf("s%.1f", at), Team: team, Other: "v"}
	}
	burst := func(n int, t0, step float64, teams ...int) []game.Notice {
		var out []game.Notice
		for i := range n {
			out = append(out, kill(t0+float64(i)*step, teams[i%len(teams)]))
		}
		return out
	}
	join := game.Notice{Kind: game.NoticeJoin, Time: 10, Who: "ann"}
	for _, c := range []struct {
		name    string
		notices []game.Notice
		want    []string
	}{
		{"twelve in 1.1 s", burst(12, 1, 0.1, 1, 2, 1), []string{"12 kills in 1.1 s: Blue 8, Yellow 4"}},
		{"at once", burst(5, 3, 0, 2, 1, 2, 0, -1), []string{"5 kills at once: Yellow 2, Blue 1, no team 1, unknown 1"}},
		{"three stay apart", burst(3, 1, 0.1, 1), []string{"s1.0 destroyed v", "s1.1 destroyed v", "s1.2 destroyed v"}},
		{"too slow", burst(4, 1, 0.8, 1), []string{"s1.0 destroyed v", "s1.8 destroyed v", "s2.6 destroyed v", "s3.4 destroyed v"}},
		{"a join between", append(append(burst(2, 9, 0.1, 1), join), burst(2, 10.1, 0.1, 1)...),
			[]string{"s9.0 destroyed v", "s9.1 destroyed v", "ann joined", "s10.1 destroyed v", "s10.2 destroyed v"}},
		{"a burst after a join, then one more", append(append([]game.Notice{join}, burst(6, 11, 0.2, 2)...), kill(14, 1)),
			[]string{"ann joined", "6 kills in 1.0 s: Yellow 6", "s14.0 destroyed v"}},
		{"a long run: a burst each 2 s", burst(10, 0, 0.5, 1), []string{"5 kills in 2.0 s: Blue 5", "5 kills in 2.0 s: Blue 5"}},
	} {
		items := feedItems(nil, c.notices)
		var got []string
		for _, it := range items {
			got = append(got, it.text)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		if len(items) > 0 && items[len(items)-1].n.Time != c.notices[len(c.notices)-1].Time {
			t.Errorf("%s: the last line is dated %v, want the last notice's %v", c.name, items[len(items)-1].n.Time, c.notices[len(c.notices)-1].Time)
		}
	}
}

// TestTeamSizes: the HUD's team line counts each team's tanks alive of its tanks,
// by team, tanks on no team last, DIS entities left out.
func TestTeamSizes(t *testing.T) {
	var tanks []game.TankView
	for i := range 512 {
		tanks = append(tanks, game.TankView{Team: 1 + i%2, Wreck: i%5 == 0})
	}
	if got, want := countTeams(tanks, nil).String(), "alive: Blue 204/256 · Yellow 205/256"; got != want {
		t.Errorf("512 tanks: %q, want %q", got, want)
	}
	tanks = append(tanks[:4], game.TankView{Team: 0}, game.TankView{Team: game.TeamDIS}, game.TankView{Team: 3, Wreck: true})
	if got, want := countTeams(tanks, nil).String(), "alive: Blue 1/2 · Yellow 2/2 · Green 0/1 · no team 1/1"; got != want {
		t.Errorf("mixed: %q, want %q", got, want)
	}
	// A large match's client hears of some tanks: the board counts the rest.
	board := make([]combat.Score, 0, 300)
	for i := range 300 {
		board = append(board, combat.Score{Team: 1 + i%3})
	}
	if got, want := countTeams(tanks, board).String(), "alive: Blue 99/100 · Yellow 100/100 · Green 99/100 · no team 1/1"; got != want {
		t.Errorf("with a board of 300: %q, want %q", got, want)
	}
	if got := countTeams([]game.TankView{{Team: 0}, {Team: game.TeamDIS}}, nil).String(); got != "" {
		t.Errorf("no team at all: %q, want nothing", got)
	}
}

// TestTeamsOfNamesMatchesTeamOfName: the feed's one pass over the tanks for every
// kill line's victim (teamsOfNames) gives each line the team a look-up of its name
// alone (teamOfName) gives: the first tank of that name, −1 for a name no tank has
// and for a line that is not a kill.
func TestTeamsOfNamesMatchesTeamOfName(t *testing.T) {
	snap := &game.Snapshot{}
	for i := range 40 {
		snap.Tanks = append(snap.Tanks, game.TankView{Name: fmt.Sprintf("tank-%d", i%30), Team: i % 3})
	}
	snap.Tanks[35].Team = 0 // "tank-5" again, in another team than the first
	cases := []struct {
		name  string
		names [feedLines]string
		want  [feedLines]bool
	}{
		{"none wanted", [feedLines]string{"tank-1", "tank-2"}, [feedLines]bool{}},
		{"every line", [feedLines]string{"tank-0", "tank-5", "tank-29", "tank-7", "tank-1", "tank-13"},
			[feedLines]bool{true, true, true, true, true, true}},
		{"missing and repeated", [feedLines]string{"nobody", "tank-5", "tank-5", "", "tank-3", "tank-4"},
			[feedLines]bool{true, true, true, true, false, true}},
	}
	for _, c := range cases {
		var got [feedLines]int
		teamsOfNames(snap, &c.names, &c.want, &got)
		for i := range got {
			want := -1
			if c.want[i] {
				want = teamOfName(snap, c.names[i])
			}
			if got[i] != want {
				t.Errorf("%s, line %d (%q): team %d, want %d", c.name, i, c.names[i], got[i], want)
			}
		}
	}
}

// teamOfName returns the team of the first tank called name in snap, or −1 when
// none is: the plain search teamsOfNames does for several names at once.
func teamOfName(snap *game.Snapshot, name string) int {
	for i := range snap.Tanks {
		if snap.Tanks[i].Name == name {
			return snap.Tanks[i].Team
		}
	}
	return -1
}
