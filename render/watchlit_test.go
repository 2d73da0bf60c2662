package render

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/geom"
)

// TestWatchedWithAllOverlaysLit starts a scene as `tanks -watch NAME -overlays all`
// does (both set before the first frame) and checks every tank's turret roof shows
// its team colour, lit, not flat black.
func TestWatchedWithAllOverlaysLit(t *testing.T) {
	v := needViewer(t)
	s := newTestScene(t, OverlayAll)
	s.Watch("blue-1")
	snap := &game.Snapshot{Self: 0}
	place := func(id uint32, name string, team int, x, z, yaw float64) {
		snap.Tanks = append(snap.Tanks, game.TankView{ID: id, Name: name, Team: team, Local: id == 1,
			Position: mgl64.Vec3{x, testGround(x, z), z}, Orientation: geom.YawQuat(yaw), UpdateAge: 0.2})
	}
	place(1, "me", 0, -60, 0, 0)
	place(2, "blue-1", 1, -40, 0, 0) // watched: the camera sits behind it
	place(3, "red-2", 0, -15, 6, -0.7)
	place(4, "blue-3", 1, -10, -8, 1.2)
	img := drawFrames(t, v, s, func(int) *game.Snapshot { return snap }, 3)
	savePNG(t, img, "watch-overlays-all.png")
	view := s.View()
	seen := 0
	sh := defaultShape()
	for _, tv := range snap.Tanks[1:] {
		// The turret's middle, half way up: team-coloured from any side.
		roof := tv.Position.Add(tv.Orientation.Rotate(sh.roof().Sub(mgl64.Vec3{0, sh.turretHeight / 2, 0})))
		x, y, ok := view.Project(roof)
		if !ok || x < 0 || y < 0 || x >= testW || y >= testH {
			continue
		}
		seen++
		r, g, b := meanRGB(img, int(x), int(y), 1)
		if r+g+b < 0.35 {
			t.Errorf("tank %s at pixel (%.0f, %.0f): colour %.2f %.2f %.2f is flat black", tv.Name, x, y, r, g, b)
		}
		if tv.Team == 1 && !(b > r+0.15 && b > g+0.1) {
			t.Errorf("tank %s (blue) at pixel (%.0f, %.0f): colour %.2f %.2f %.2f is not blue", tv.Name, x, y, r, g, b)
		}
	}
	if seen < 2 {
		t.Fatalf("only %d tanks on the picture", seen)
	}
}
