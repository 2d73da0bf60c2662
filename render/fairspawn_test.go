package render

import (
	"fmt"
	"image"
	"testing"
	"time"

	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/referee"
	"github.com/treadline/treadline/session"
	"github.com/treadline/treadline/terrain"
)

// TestFairSpawnDrawn starts the practice as the main menu does (the shipped map, the
// player on session.PracticeTeam with the default bots, over the practice's link) and
// draws its first seconds with the line the client shows: the player's tank in its
// team colour, the line about the teams, and no enemy drawn within a gunner's range.
func TestFairSpawnDrawn(t *testing.T) {
	v := needViewer(t)
	s, snap, img := drawPracticeStart(t, v)
	savePNG(t, img, "practice-fair-spawn.png")
	if len(snap.Tanks) != session.DefaultPracticeBots+1 || snap.Self < 0 {
		t.Fatalf("%d tanks (self %d), want the player and %d bots", len(snap.Tanks), snap.Self, session.DefaultPracticeBots)
	}
	view := s.View()
	self := snap.Tanks[snap.Self]
	checkTeamColour(t, img, view, &self, "the player's tank")
	for _, tv := range snap.Tanks {
		if !combat.Enemies(session.PracticeTeam, tv.Team) {
			continue
		}
		if d := tv.Position.Sub(self.Position).Len(); d < 220 {
			t.Errorf("enemy %s %.0f m from the player's spawn, within a gunner's range", tv.Name, d)
		}
		x, y, ok := view.Project(TurretRoof(&tv))
		if !ok || x < 0 || y < 0 || x >= testW || y >= testH {
			continue
		}
		want := teamColor(tv.Team)
		if n := near(img, x, y, 2, func(r, g, b float64) bool { return closeToTeam(r, g, b, want.R, want.G, want.B) }); n > 8 {
			t.Errorf("enemy %s drawn at pixel (%.0f, %.0f): %d pixels of its team colour", tv.Name, x, y, n)
		}
	}
	// The line about the teams: light yellow text on its dark strip, under the middle.
	f := s.hud.flash
	fw, fh := f.Size()
	text := 0
	for y := int(f.Position().Y); y < int(f.Position().Y+fh); y++ {
		for x := int(f.Position().X); x < int(f.Position().X+fw); x++ {
			if r, g, b := rgb(img, x, y); r > 0.8 && g > 0.75 && b > 0.35 && b < 0.7 { // the text, not a yellow tank
				text++
			}
		}
	}
	if !f.Visible() || text < 40 {
		t.Errorf("the practice's line (shown %v) %.0f×%.0f: %d text pixels, want 40", f.Visible(), fw, fh, text)
	}
}

// drawPracticeStart starts the practice on a host in process and draws its first two
// seconds, the player still, with the client's line about the teams; it returns the
// scene, the last snapshot and the last picture.
func drawPracticeStart(t *testing.T, v *Viewer) (*Scene, *game.Snapshot, *image.RGBA) {
	t.Helper()
	mp, err := terrain.Load("../assets/maps/" + session.DefaultMapName + ".json")
	if err != nil {
		t.Fatal(err)
	}
	judge, err := referee.New(mp, combat.Rules{}, game.DeadReckoning().Reckon)
	if err != nil {
		t.Fatal(err)
	}
	link := impair.Link{Latency: session.DefaultPracticeLag, Jitter: session.DefaultPracticeJitter, Loss: session.DefaultPracticeLoss}
	rig, err := gametest.New(gametest.Config{Link: link, Seed: 4, Judge: judge})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rig.Close() })
	p := &practice{rig: rig}
	if p.bot, err = game.NewMatch(game.Config{Map: mp, NoPlayer: true, Bots: session.DefaultPracticeBots, Seed: 5}, join(t, rig)); err != nil {
		t.Fatal(err)
	}
	if p.player, err = game.NewMatch(game.Config{Map: mp, Name: "me", Team: session.PracticeTeam, Seed: 4, Impairment: link}, join(t, rig)); err != nil {
		t.Fatal(err)
	}
	s, err := NewScene(TerrainFromMap(mp, 0), SceneConfig{Width: testW, Height: testH, Ground: mp.HeightAt})
	if err != nil {
		t.Fatal(err)
	}
	friends, enemies := session.PracticeTeams(session.DefaultPracticeBots)
	s.FlashFor(fmt.Sprintf("Practice: you are on team %d with %d bot teammates, against %d bots.",
		session.PracticeTeam, friends, enemies), time.Minute)
	snap := &game.Snapshot{}
	var img *image.RGBA
	onMain(func() {
		for i := range 120 { // 2 s: the tanks heard of and settled
			p.step(t, 1.0/60, physics.Input{})
			p.player.Snapshot(snap)
			s.Update(snap, 1.0/60)
			if i%20 == 19 {
				if err = v.Draw(s); err != nil {
					return
				}
				img = v.Capture()
				v.Swap()
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, snap, img
}

// checkTeamColour checks that the turret roof of tv, drawn in img by view, is mostly
// its team colour.
func checkTeamColour(t *testing.T, img *image.RGBA, view View, tv *game.TankView, what string) {
	t.Helper()
	x, y, ok := view.Project(TurretRoof(tv))
	if !ok || x < 3 || y < 3 || x >= testW-3 || y >= testH-3 {
		t.Fatalf("%s is off the picture (pixel %.0f, %.0f)", what, x, y)
	}
	want := teamColor(tv.Team)
	if n := near(img, x, y, 3, func(r, g, b float64) bool { return closeToTeam(r, g, b, want.R, want.G, want.B) }); n*4 < 49 {
		t.Errorf("%s around pixel (%.0f, %.0f): %d of 49 pixels near its team colour %.2f %.2f %.2f", what, x, y, n, want.R, want.G, want.B)
	}
}
