package render

import (
	"image"
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/game"
)

// TestHurtDirection points the damage indicator from a camera at the origin looking
// along −Z: ahead is up the picture, behind down, right right.
func TestHurtDirection(t *testing.T) {
	v := View{Orientation: mgl64.QuatIdent()}
	for _, c := range []struct {
		p      mgl64.Vec3
		dx, dy float64
		arrow  string
	}{
		{mgl64.Vec3{0, 0, -10}, 0, -1, "↑"},
		{mgl64.Vec3{0, 3, 10}, 0, 1, "↓"},
		{mgl64.Vec3{10, 0, 0}, 1, 0, "→"},
		{mgl64.Vec3{-10, -2, 0}, -1, 0, "←"},
		{mgl64.Vec3{10, 0, -10}, math.Sqrt2 / 2, -math.Sqrt2 / 2, "↗"},
	} {
		dx, dy := hurtDirection(v, c.p)
		if math.Abs(dx-c.dx) > 1e-9 || math.Abs(dy-c.dy) > 1e-9 {
			t.Errorf("hurtDirection(%v) = (%.3f, %.3f), want (%.3f, %.3f)", c.p, dx, dy, c.dx, c.dy)
		}
		if text := hurtText(game.Hurt{Name: "Ada", Damage: 25}, dx, dy); !strings.HasPrefix(text, c.arrow+" Ada −25") {
			t.Errorf("hurtText toward %v = %q, want %s Ada −25", c.p, text, c.arrow)
		}
	}
}

// feedbackScene is a fight seen from behind the player's tank, with the gun aimed at
// tank-1 ahead, and a frame of it drawn with the feedback cv sets, and one without.
func feedbackScene(t *testing.T, set func(snap *game.Snapshot)) (with, without *image.RGBA, s *Scene, snap *game.Snapshot) {
	t.Helper()
	v := needViewer(t)
	plain := testSnapshot(3)
	plain.Combat.Enabled, plain.Combat.HasAim, plain.Combat.Loaded = true, true, 1
	plain.Combat.Health, plain.Combat.MaxHealth = 60, 100
	plain.Combat.Aim = plain.Tanks[1].Position.Add(mgl64.Vec3{0, 1.5, 0})
	s = newTestScene(t, 0)
	without = drawFrames(t, v, s, func(int) *game.Snapshot { return plain }, 3)
	snap = testSnapshot(3)
	snap.Combat = plain.Combat
	set(snap)
	s = newTestScene(t, 0)
	with = drawFrames(t, v, s, func(int) *game.Snapshot { return snap }, 3)
	return with, without, s, snap
}

func reddish(r, g, b float64) bool { return r > 0.6 && r > g+0.3 && r > b+0.3 }

// TestHitMarkerDrawn shows a kill's marker on the crosshair: red pixels gather round
// the crosshair that were not there without it; a plain hit's marker is white.
func TestHitMarkerDrawn(t *testing.T) {
	for _, c := range []struct {
		name string
		mk   game.HitMarker
		ok   func(r, g, b float64) bool
	}{
		{"kill", game.HitMarker{Confirmed: true, Kill: true, Damage: 40, Age: 0.1}, reddish},
		{"hit", game.HitMarker{Confirmed: true, Damage: 25, Age: 0.1}, func(r, g, b float64) bool { return r > 0.9 && g > 0.9 && b > 0.9 }},
	} {
		with, without, s, snap := feedbackScene(t, func(snap *game.Snapshot) { snap.Combat.Markers = []game.HitMarker{c.mk} })
		savePNG(t, with, "feedback-marker-"+c.name+".png")
		x, y, ok := s.View().Project(snap.Combat.Aim)
		if !ok {
			t.Fatal("the aim point is off the picture")
		}
		// The marker is drawn at the HUD's scale: half its full size in this window.
		got, base := near(with, x, y, 22, c.ok), near(without, x, y, 22, c.ok)
		if got < base+int(25*s.hud.scale) {
			t.Errorf("%s marker: %d marker-coloured pixels round the crosshair, %d without it", c.name, got, base)
		}
	}
}

// TestDamageIndicatorDrawn hits the player from tank-2, ahead and to the right: the
// indicator's red text shows on that side of the middle of the picture.
func TestDamageIndicatorDrawn(t *testing.T) {
	with, without, s, snap := feedbackScene(t, func(snap *game.Snapshot) {
		snap.Combat.Hurts = []game.Hurt{{Shooter: 3, Name: "tank-2", From: snap.Tanks[2].Position, HasFrom: true, Damage: 25, Age: 0.2}}
	})
	savePNG(t, with, "feedback-damage.png")
	dx, dy := hurtDirection(s.View(), snap.Tanks[2].Position)
	x, y := float64(testW)/2+dx*hurtRadius*float64(s.hud.scale), float64(testH)/2+dy*hurtRadius*float64(s.hud.scale)
	got, base := near(with, x, y, 30, reddish), near(without, x, y, 30, reddish)
	if got < base+20 {
		t.Errorf("damage indicator at (%.0f, %.0f): %d red pixels, %d without it", x, y, got, base)
	}
}

// TestKillerMarkedWhileWreck wrecks the player's tank, destroyed by tank-1: a red ring
// and line mark tank-1 in the world.
func TestKillerMarkedWhileWreck(t *testing.T) {
	with, without, s, snap := feedbackScene(t, func(snap *game.Snapshot) {
		snap.Combat.Wreck, snap.Combat.Killer, snap.Combat.KilledBy, snap.Combat.RespawnIn = true, 2, "tank-1", 3
		snap.Combat.HasAim = false
	})
	savePNG(t, with, "feedback-killed-by.png")
	if !strings.Contains(s.combat.banner.Text(), "tank-1") {
		t.Errorf("banner %q does not name the killer", s.combat.banner.Text())
	}
	x, y, ok := s.View().Project(snap.Tanks[1].Position.Add(mgl64.Vec3{0, 8, 0}))
	if !ok {
		t.Fatal("the killer is off the picture")
	}
	got, base := near(with, x, y, 40, reddish), near(without, x, y, 40, reddish)
	if got < base+10 {
		t.Errorf("killer marker near (%.0f, %.0f): %d red pixels, %d without it", x, y, got, base)
	}
}
