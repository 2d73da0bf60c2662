package render

import (
	"fmt"
	"image"
	"math"
	"strings"
	"testing"

	"github.com/g3n/engine/math32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/game"
)

// hillGround is flat ground with one 30 m hill at x = 80 on the z = 0 line.
func hillGround(x, z float64) float64 {
	dx := x - 80
	return 30 * math.Exp(-(dx*dx+z*z)/(2*18*18))
}

// marchRay is an exact-enough ray test over a height function, for tests: it walks
// the ray in 5 cm steps.
func marchRay(h func(x, z float64) float64) func(o, d mgl64.Vec3, maxDist float64) (mgl64.Vec3, bool) {
	return func(o, d mgl64.Vec3, maxDist float64) (mgl64.Vec3, bool) {
		d = d.Normalize()
		for t := 0.0; t <= maxDist; t += 0.05 {
			p := o.Add(d.Mul(t))
			if p[1] <= h(p[0], p[2]) {
				return p, true
			}
		}
		return mgl64.Vec3{}, false
	}
}

// placedTank is a tank for a hand-made snapshot.
func placedTank(id uint32, name string, team int, x, z, yaw float64, ground func(x, z float64) float64) game.TankView {
	return game.TankView{ID: id, Name: name, Team: team, Local: id == 1,
		Position: mgl64.Vec3{x, ground(x, z), z}, Orientation: mgl64.QuatRotate(yaw, mgl64.Vec3{0, 1, 0})}
}

// labelRects returns the screen rectangles of s's visible tank labels, by tank name.
func labelRects(s *Scene) map[string]rect {
	out := map[string]rect{}
	for _, e := range s.tanks {
		for what, l := range map[string]*textLabel{"name": e.name, "info": e.info} {
			if l != nil && l.Visible() {
				pos := l.Position()
				out[e.nameText+" "+what] = rect{pos.X, pos.Y, l.Width(), l.Height()}
			}
		}
	}
	return out
}

// TestLabelsHiddenBehindHillsAndApart puts one tank behind a hill, a crowd of tanks
// close together and one off to the side: the hidden tank's label is absent (and no
// label pixels show where it would be), the others' labels never overlap each other
// or a HUD panel, and all of them lie inside the picture.
func TestLabelsHiddenBehindHillsAndApart(t *testing.T) {
	v := needViewer(t)
	s, err := NewScene(terrainOf(256, 2, 32, 4, hillGround), SceneConfig{Width: testW, Height: testH,
		Raycast: marchRay(hillGround), Overlays: OverlayLabels})
	if err != nil {
		t.Fatal(err)
	}
	snap := &game.Snapshot{Self: 0}
	snap.Tanks = append(snap.Tanks, placedTank(1, "me", 0, -20, 0, 0, hillGround))
	snap.Tanks = append(snap.Tanks, placedTank(2, "hidden", 1, 135, 0, 0, hillGround))
	snap.Tanks = append(snap.Tanks, placedTank(3, "aside", 1, 30, -40, 0, hillGround))
	for i := 0; i < 8; i++ { // a crowd: 2.5 m apart, 25 m ahead
		snap.Tanks = append(snap.Tanks, placedTank(uint32(10+i), fmt.Sprintf("crowd-%d", i), i%2, 25+float64(i%3)*2.5, 12+float64(i/3)*2.5, 0, hillGround))
	}
	img := drawFrames(t, v, s, func(int) *game.Snapshot { return snap }, 3)
	savePNG(t, img, "labels.png")

	hidden := s.tanks[2]
	if hidden.labelled() {
		t.Errorf("the tank behind the hill has a label")
	}
	// Where its label would be, there is no label text (white) on the picture.
	x, y, ok := s.View().Project(roofPoint(&snap.Tanks[1]))
	if !ok {
		t.Fatal("the hidden tank's roof does not project")
	}
	white := 0
	for py := int(y) - 40; py < int(y)+2; py++ {
		for px := int(x) - 60; px < int(x)+60; px++ {
			if px < 0 || py < 0 || px >= testW || py >= testH {
				continue
			}
			if r, g, b := rgb(img, px, py); r > 0.92 && g > 0.92 && b > 0.92 {
				white++
			}
		}
	}
	if white > 0 {
		t.Errorf("%d white text pixels where the hidden tank's label would be", white)
	}
	if !s.tanks[3].labelled() {
		t.Errorf("the tank in plain view has no label")
	}
	rects := labelRects(s)
	crowd := 0
	for k := range rects {
		if strings.HasPrefix(k, "crowd") && strings.HasSuffix(k, " name") {
			crowd++
		}
	}
	if crowd < 2 {
		t.Errorf("only %d labels of the crowd are shown: %v", crowd, rects)
	}
	hud := s.hud.appendPanelRects(nil)
	for a, ra := range rects {
		if ra.x < 0 || ra.y < 0 || ra.x+ra.w > testW || ra.y+ra.h > testH {
			t.Errorf("label %q at %+v is not inside the %dx%d picture", a, ra, testW, testH)
		}
		for b, rb := range rects {
			if a < b && ra.overlaps(rb) {
				t.Errorf("labels %q %+v and %q %+v overlap", a, ra, b, rb)
			}
		}
		for _, rh := range hud {
			if ra.overlaps(rh) {
				t.Errorf("label %q %+v covers a HUD panel at %+v", a, ra, rh)
			}
		}
	}
	t.Logf("%d labels shown, %d of the crowd of 8", len(rects), crowd)
}

// ghostSnapshot returns a snapshot with the player's tank out of sight and a remote
// tank "mover" heading along +X, its last-known state lk metres behind it and its
// projection ahead by the error err, m.
func ghostSnapshot(lk, err float64) *game.Snapshot {
	snap := &game.Snapshot{Self: 0}
	snap.Tanks = append(snap.Tanks, placedTank(1, "me", 0, -120, 90, 0, testGround))
	mover := placedTank(2, "mover", 1, -20, 0, 0, testGround)
	at := func(dx float64) mgl64.Vec3 { return mgl64.Vec3{-20 + dx, testGround(-20+dx, 0), 0} }
	var kn game.Known
	kn.LastKnown.Position, kn.LastKnown.Orientation = at(-lk), mover.Orientation
	kn.LastKnownProjected.Position, kn.LastKnownProjected.Orientation = at(err), mover.Orientation
	snap.Tanks = append(snap.Tanks, mover)
	snap.Known = append(snap.Known, game.Known{}, kn)
	return snap
}

// TestGhostFootprintsReadFromTheChaseCamera watches a remote tank shown 0.6 m short of
// its projection, from behind (the chase camera's default) and from its side: the
// hull keeps its team colour where it had it without the overlay (the ghosts no
// longer pile onto the tank), the last-known (yellow) and projected (cyan) footprints
// show on the ground, and the error line (red, seen from the side) and the
// projection's rise to it (cyan) stand above the hull's top.
func TestGhostFootprintsReadFromTheChaseCamera(t *testing.T) {
	v := needViewer(t)
	snap := ghostSnapshot(2.5, 0.6)
	mover, known := snap.Tanks[1], snap.Known[1]
	frame := func(int) *game.Snapshot { return snap }
	for _, view := range []struct {
		name string
		yaw  float64
	}{{"behind", 0}, {"side", math.Pi / 2}} {
		s := newTestScene(t, 0)
		s.Watch("mover")
		s.chase.Yaw = view.yaw
		off := drawFrames(t, v, s, frame, 3)
		s.SetOverlays(OverlayGhost)
		on := drawFrames(t, v, s, frame, 2)
		savePNG(t, on, "ghost-"+view.name+".png")
		// The hull's box on the picture: its top corners projected.
		box := image.Rectangle{Min: image.Pt(testW, testH)}
		sh := defaultShape()
		for _, c := range [][2]float64{{-1, -1}, {-1, 1}, {1, -1}, {1, 1}} {
			p := mover.Position.Add(mover.Orientation.Rotate(mgl64.Vec3{c[0] * sh.hull.size[0] / 2 * 0.8, sh.turretPivot[1], c[1] * sh.hull.size[2] / 2 * 0.8}))
			x, y, _ := s.View().Project(p)
			box.Min.X, box.Min.Y = min(box.Min.X, int(x)), min(box.Min.Y, int(y))
			box.Max.X, box.Max.Y = max(box.Max.X, int(x)), max(box.Max.Y, int(y))
		}
		want := teamColor(1)
		teamOff, teamKept := 0, 0
		for y := box.Min.Y; y <= box.Max.Y; y++ {
			for x := box.Min.X; x <= box.Max.X; x++ {
				if r, g, b := rgb(off, x, y); closeToTeam(r, g, b, want.R, want.G, want.B) {
					teamOff++
					if r, g, b := rgb(on, x, y); closeToTeam(r, g, b, want.R, want.G, want.B) {
						teamKept++
					}
				}
			}
		}
		if teamOff < 50 {
			t.Fatalf("%s: only %d team-coloured hull pixels in %v", view.name, teamOff, box)
		}
		if teamKept*100 < teamOff*95 {
			t.Errorf("%s: with the ghost overlay, %d of %d hull pixels keep the team colour (want 95%%)", view.name, teamKept, teamOff)
		}
		// Each colour where the overlay put it: the footprints around their centres
		// on the ground, the error line above the hull's box.
		near := func(p mgl64.Vec3, r int) image.Rectangle {
			x, y, _ := s.View().Project(p)
			return image.Rect(int(x)-r, int(y)-r, int(x)+r, int(y)+r)
		}
		for _, c := range []struct {
			what string
			area image.Rectangle
			col  math32.Color
		}{
			{"last-known footprint", near(known.LastKnown.Position, 90), lastKnownColor},
			{"projected footprint", near(known.LastKnownProjected.Position, 90), projectionColor},
			// From behind, the error line runs away from the camera, end on; the
			// projection's rise to it stands above the hull.
			{"error line", image.Rect(box.Min.X-40, 0, box.Max.X+40, box.Min.Y-2), errorColor},
			{"rise to the error line", image.Rect(box.Min.X-40, 0, box.Max.X+40, box.Min.Y-2), projectionColor},
		} {
			if c.col == errorColor && view.yaw == 0 {
				continue
			}
			if n := countColor(on, c.area, c.col); n < 8 {
				t.Errorf("%s: %d pixels of the %s in %v", view.name, n, c.what, c.area)
			}
			if n := countColor(off, c.area, c.col); n > 2 {
				t.Errorf("%s: %d pixels of the %s's colour without the overlay: the check cannot tell", view.name, n, c.what)
			}
		}
	}
}

// countColor counts the pixels of img in r within 0.12 of colour c on every channel.
func countColor(img *image.RGBA, r image.Rectangle, c math32.Color) int {
	n := 0
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			pr, pg, pb := rgb(img, x, y)
			if math.Abs(pr-float64(c.R)) < 0.12 && math.Abs(pg-float64(c.G)) < 0.12 && math.Abs(pb-float64(c.B)) < 0.12 {
				n++
			}
		}
	}
	return n
}

// TestLegendShowsWithOverlays: with any overlay on, the legend panel is in the
// bottom-right corner of the picture; with none, it is gone.
func TestLegendShowsWithOverlays(t *testing.T) {
	v := needViewer(t)
	snap := testSnapshot(3)
	s := newTestScene(t, 0)
	frame := func(int) *game.Snapshot { return snap }
	darkShare := func(img *image.RGBA, r rect) float64 {
		dark, n := 0, 0
		for y := int(r.y) + 2; y < int(r.y+r.h)-2; y++ {
			for x := int(r.x) + 2; x < int(r.x+r.w)-2; x++ {
				n++
				c := img.RGBAAt(x, y)
				if c.R < 30 && c.G < 30 && c.B < 35 {
					dark++
				}
			}
		}
		return float64(dark) / float64(max(1, n))
	}
	for _, o := range []Overlay{OverlayGhost, OverlayTrail, OverlayAll} {
		s.SetOverlays(o)
		img := drawFrames(t, v, s, frame, 2)
		if s.hud.legend == nil || !s.hud.legend.Visible() {
			t.Fatalf("overlays %s: no legend", o)
		}
		pos := s.hud.legend.Position()
		r := rect{pos.X, pos.Y, s.hud.legend.Width(), s.hud.legend.Height()}
		if r.x+r.w < testW*3/4 || r.y+r.h < testH*3/4 {
			t.Errorf("overlays %s: legend at %+v is not in the bottom-right corner", o, r)
		}
		// The legend's dark background (its text and swatches are the rest).
		if d := darkShare(img, r); d < 0.5 {
			t.Errorf("overlays %s: only %.0f%% of the legend's area is its background", o, 100*d)
		}
		if o == OverlayAll {
			savePNG(t, img, "legend.png")
		}
		s.SetOverlays(0)
		img = drawFrames(t, v, s, frame, 2)
		if s.hud.legend.Visible() {
			t.Errorf("legend still shown with no overlay")
		}
		if d := darkShare(img, r); d > 0.2 {
			t.Errorf("with no overlay %.0f%% of the legend's place is still dark", 100*d)
		}
	}
}

// TestMinimapBlips checks the minimap shows an arrow in the team's colour where each
// tank is, and none where there is no tank.
func TestMinimapBlips(t *testing.T) {
	v := needViewer(t)
	snap := &game.Snapshot{Self: 0}
	spots := [][2]float64{{-150, -150}, {150, -120}, {-120, 160}, {170, 170}, {0, 60}}
	for i, p := range spots {
		snap.Tanks = append(snap.Tanks, placedTank(uint32(i+1), fmt.Sprintf("t%d", i), i%2, p[0], p[1], 0.7*float64(i), testGround))
	}
	s := newTestScene(t, 0)
	s.Watch("t3")
	img := drawFrames(t, v, s, func(int) *game.Snapshot { return snap }, 3)
	savePNG(t, img, "minimap.png")
	m := s.minimap
	pos := m.img.Position()
	found := func(wx, wz float64, team int) bool {
		px, py := m.pixel(mgl64.Vec3{wx, 0, wz})
		c := teamColor(team)
		for dy := -2; dy <= 2; dy++ {
			for dx := -2; dx <= 2; dx++ {
				r, g, b := rgb(img, int(pos.X)+int(px)+dx, int(pos.Y)+int(py)+dy)
				if closeToTeam(r, g, b, c.R, c.G, c.B) && math.Max(r, math.Max(g, b)) > 0.5 {
					return true
				}
			}
		}
		return false
	}
	for i, p := range spots {
		if !found(p[0], p[1], i%2) {
			t.Errorf("no team-%d blip on the minimap for tank %d at (%.0f, %.0f)", i%2, i, p[0], p[1])
		}
	}
	for _, p := range [][2]float64{{0, -200}, {-200, 0}, {100, 100}} {
		if found(p[0], p[1], 0) || found(p[0], p[1], 1) {
			t.Errorf("a blip on the minimap at (%.0f, %.0f), where there is no tank", p[0], p[1])
		}
	}
}

// TestHUDScalesWithTheWindow: the panels shown while playing cover at most a fifth
// of the window, from 320×200 to 1920×1080, and their fonts follow the window.
func TestHUDScalesWithTheWindow(t *testing.T) {
	v := needViewer(t)
	snap := testSnapshot(3)
	s := newTestScene(t, 0)
	drawFrames(t, v, s, func(int) *game.Snapshot { return snap }, 1)
	for _, size := range [][2]int{{320, 200}, {640, 360}, {1280, 720}, {1920, 1080}} {
		s.Resize(size[0], size[1])
		s.Update(snap, 1) // texts due
		var area float32
		for _, r := range s.hud.appendPanelRects(nil) {
			area += r.w * r.h
			if r.x < 0 || r.y < 0 || r.x+r.w > float32(size[0])+0.5 || r.y+r.h > float32(size[1])+0.5 {
				t.Errorf("at %dx%d a panel %+v pokes out of the window", size[0], size[1], r)
			}
		}
		share := area / float32(size[0]*size[1])
		if share > 0.2 {
			t.Errorf("at %dx%d the HUD covers %.0f%% of the window", size[0], size[1], 100*share)
		}
		t.Logf("%dx%d: scale %.2f, HUD covers %.1f%%", size[0], size[1], s.hud.scale, 100*share)
	}
}

// TestHelpIsOneOpaquePanel: the F1 help is a single opaque image panel, which the
// renderer draws before the scene and which hides the scene under it: showing it
// costs one quad, not a stack of translucent text over a full frame.
func TestHelpIsOneOpaquePanel(t *testing.T) {
	s := newTestScene(t, 0)
	if s.hud.help.Material().Transparent() {
		t.Error("the help panel is translucent")
	}
	if n := len(s.hud.help.Children()); n != 0 {
		t.Errorf("the help panel has %d children", n)
	}
}

// TestFeedChatAndWarningDrawn draws a frame with notices in the feed, the chat box
// open and the host silent for 2.5 s: the red warning banner and the feed's lines
// are on the picture where the HUD put them.
func TestFeedChatAndWarningDrawn(t *testing.T) {
	v := needViewer(t)
	snap := testSnapshot(3)
	snap.Time = 30
	snap.Net.Timeout, snap.Net.Silence = 6, 2.5
	snap.Notices = []game.Notice{
		{Kind: game.NoticeJoin, Time: 21, Who: "cyd", Team: 1},
		{Kind: game.NoticeChat, Time: 24, Who: "cyd", Team: 1, Text: "anyone on the ridge?"},
		{Kind: game.NoticeChat, Time: 26, Who: "ann", Team: 0, Text: "two of them, west end"},
		{Kind: game.NoticeTimeout, Time: 29, Who: "bob", Team: 1},
	}
	s := newTestScene(t, 0)
	s.SetPanels(Panels{Chat: true, ChatLine: "on my way"})
	onMain(func() { // at full size, for the picture
		v.Window().SetSize(DefaultWidth, DefaultHeight)
		v.Swap()
	})
	defer onMain(func() {
		v.Window().SetSize(testW, testH)
		v.Swap()
	})
	img := drawFrames(t, v, s, func(int) *game.Snapshot { return snap }, 2)
	savePNG(t, img, "feed.png")
	share := func(l *textLabel, ok func(r, g, b float64) bool) float64 {
		pos := l.Position()
		n, hit := 0, 0
		for y := int(pos.Y) + 1; y < int(pos.Y+l.Height())-1; y++ {
			for x := int(pos.X) + 1; x < int(pos.X+l.Width())-1; x++ {
				n++
				if ok(rgb(img, x, y)) {
					hit++
				}
			}
		}
		return float64(hit) / float64(max(1, n))
	}
	red := func(r, g, b float64) bool { return r > 0.55 && g < 0.2 && b < 0.2 }
	if !s.hud.warn.Visible() || share(s.hud.warn, red) < 0.5 {
		t.Errorf("the link warning is not drawn as a red banner")
	}
	dark := func(r, g, b float64) bool { return r < 0.25 && g < 0.25 && b < 0.3 }
	for i, l := range s.hud.feed.lines[:4] {
		if !l.Visible() || share(l, dark) < 0.3 {
			t.Errorf("feed line %d (%q) is not drawn over its dark background", i, l.Text())
		}
	}
	if !s.hud.feed.chat.Visible() || share(s.hud.feed.chat, dark) < 0.5 {
		t.Errorf("the chat box is not drawn")
	}
	if got := s.hud.feed.chat.Text(); got != "say: on my way_" {
		t.Errorf("the chat box shows %q", got)
	}
}
