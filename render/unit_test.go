package render

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	imgcolor "image/color"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
)

func TestParseOverlays(t *testing.T) {
	cases := []struct {
		in   string
		want Overlay
		err  bool
	}{
		{"", 0, false},
		{"ghost", OverlayGhost, false},
		{"ghost, trail ,clamp", OverlayGhost | OverlayTrail | OverlayClamp, false},
		{"motion,labels", OverlayMotion | OverlayLabels, false},
		{"all", OverlayAll, false},
		{"ghost,,", OverlayGhost, false},
		{"ghosts", 0, true},
		{"GHOST", 0, true},
	}
	for _, c := range cases {
		got, err := ParseOverlays(c.in)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ParseOverlays(%q) = %v, %v; want %v, error %v", c.in, got, err, c.want, c.err)
		}
	}
	for o := Overlay(0); o <= OverlayAll; o++ {
		back, err := ParseOverlays(o.String())
		if err != nil || back != o {
			t.Errorf("ParseOverlays(%q) = %v, %v; want %v", o.String(), back, err, o)
		}
	}
}

// TestParseOverlaysError checks the error a player reads for a wrong -overlays: it
// names every overlay (hits too) and carries no package prefix (the flag's usage line
// gives the context).
// TestOverlayViewDetail: every overlay that reads the last-known projection (the
// ghosts, the error labels) or the trails asks the match for it, and no overlay
// at all asks for neither.
func TestOverlayViewDetail(t *testing.T) {
	cases := []struct {
		o    Overlay
		want game.ViewDetail
	}{
		{0, game.ViewDetail{NoProjection: true, NoTrails: true}},
		{OverlayGhost, game.ViewDetail{NoTrails: true}},
		{OverlayLabels, game.ViewDetail{NoTrails: true}},
		{OverlayTrail, game.ViewDetail{NoProjection: true}},
		{OverlayClamp | OverlayMotion | OverlayHits, game.ViewDetail{NoProjection: true, NoTrails: true}},
		{OverlayGhost | OverlayTrail, game.ViewDetail{}},
		{OverlayAll, game.ViewDetail{}},
	}
	for _, c := range cases {
		if got := c.o.ViewDetail(); got != c.want {
			t.Errorf("%v.ViewDetail() = %+v, want %+v", c.o, got, c.want)
		}
	}
}

func TestParseOverlaysError(t *testing.T) {
	_, err := ParseOverlays("ghosts")
	if err == nil {
		t.Fatal("ParseOverlays(ghosts): no error")
	}
	msg := err.Error()
	if strings.HasPrefix(msg, "render:") {
		t.Errorf("error %q leaks the package prefix", msg)
	}
	for _, n := range overlayNames {
		if !strings.Contains(msg, n.name) {
			t.Errorf("error %q does not name overlay %q", msg, n.name)
		}
	}
}

func TestLOD(t *testing.T) {
	cases := []struct {
		d      float64
		levels int
		want   int
	}{
		{0, 4, 0}, {119, 4, 0}, {120, 4, 1}, {250, 4, 2}, {10000, 4, 3}, {500, 1, 0}, {-1, 4, 0},
	}
	for _, c := range cases {
		if got := lodFor(c.d, DefaultLODDistance, c.levels); got != c.want {
			t.Errorf("lodFor(%v, %v, %d) = %d, want %d", c.d, DefaultLODDistance, c.levels, got, c.want)
		}
	}
	lo, hi := mgl64.Vec3{0, 0, 0}, mgl64.Vec3{10, 5, 10}
	for _, c := range []struct {
		p    mgl64.Vec3
		want float64
	}{
		{mgl64.Vec3{5, 1, 5}, 0}, {mgl64.Vec3{13, 1, 5}, 3}, {mgl64.Vec3{13, 9, 14}, math.Sqrt(9 + 16 + 16)},
	} {
		if got := boxDistance(c.p, lo, hi); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("boxDistance(%v) = %v, want %v", c.p, got, c.want)
		}
	}
}

func TestMeshValidate(t *testing.T) {
	good := Mesh{
		Positions: []float32{0, 0, 0, 1, 0, 0, 0, 0, 1},
		Normals:   []float32{0, 1, 0, 0, 1, 0, 0, 1, 0},
		Indices:   []uint32{0, 2, 1},
	}
	if err := good.Validate(); err != nil {
		t.Fatalf("good mesh: %v", err)
	}
	bad := map[string]func(m *Mesh){
		"empty":           func(m *Mesh) { m.Positions, m.Normals = nil, nil },
		"ragged":          func(m *Mesh) { m.Positions = m.Positions[:8] },
		"normals":         func(m *Mesh) { m.Normals = m.Normals[:6] },
		"colors":          func(m *Mesh) { m.Colors = []float32{1, 1, 1} },
		"index range":     func(m *Mesh) { m.Indices = []uint32{0, 1, 3} },
		"partial tri":     func(m *Mesh) { m.Indices = []uint32{0, 1} },
		"nan":             func(m *Mesh) { m.Positions[4] = float32(math.NaN()) },
		"no triangles":    func(m *Mesh) { m.Indices = nil },
		"infinite":        func(m *Mesh) { m.Positions[0] = float32(math.Inf(1)) },
		"colors too many": func(m *Mesh) { m.Colors = make([]float32, 12) },
	}
	for name, spoil := range bad {
		m := Mesh{
			Positions: append([]float32(nil), good.Positions...),
			Normals:   append([]float32(nil), good.Normals...),
			Indices:   append([]uint32(nil), good.Indices...),
		}
		spoil(&m)
		if err := m.Validate(); err == nil {
			t.Errorf("%s: Validate accepted %+v", name, m)
		}
	}
}

func TestNewSceneRejectsBadTerrain(t *testing.T) {
	if _, err := NewScene(Terrain{}, SceneConfig{}); err != ErrNoTerrain {
		t.Errorf("empty terrain: err = %v, want ErrNoTerrain", err)
	}
	tt := synthTerrain(32, 2, 16, 2)
	tt.Chunks[1] = tt.Chunks[1][:1]
	if _, err := NewScene(tt, SceneConfig{}); err == nil || !strings.Contains(err.Error(), "levels of detail") {
		t.Errorf("ragged levels: err = %v", err)
	}
	tt = synthTerrain(32, 2, 16, 2)
	tt.Chunks[0][1].Indices[0] = 1 << 30
	if _, err := NewScene(tt, SceneConfig{}); err == nil || !strings.Contains(err.Error(), "chunk 0 lod 1") {
		t.Errorf("bad index: err = %v", err)
	}
}

// TestHelpRows: the help panel holds every key and what it does once, in two column
// pairs under a heading, the first half of the list on the left.
func TestHelpRows(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 31} {
		var lines []HelpLine
		for i := range n {
			lines = append(lines, HelpLine{Key: fmt.Sprintf("K%d", i), What: fmt.Sprintf("does %d", i)})
		}
		rows := helpRows(lines)
		half := (n + 1) / 2
		if len(rows) != 2+half || rows[0][0] != "Keys" {
			t.Errorf("%d lines: %d rows headed %q, want %d headed Keys", n, len(rows), rows[0][0], 2+half)
			continue
		}
		for i, l := range lines {
			row, col := rows[2+i%half], 0
			if i >= half {
				col = 2
			}
			if row[col] != l.Key || row[col+1] != l.What {
				t.Errorf("%d lines: line %d %v is not in column pair %d of row %d: %q", n, i, l, col/2, 2+i%half, row)
			}
		}
		if n%2 == 1 && rows[len(rows)-1][2] != "" {
			t.Errorf("%d lines: the last row's right pair holds %q, want it empty", n, rows[len(rows)-1][2])
		}
	}
}

// TestMenuViewLayout: the highlight sits behind the selected row and only there, the
// rows are centred, and they shrink, then scroll, to fit a small window.
func TestMenuViewLayout(t *testing.T) {
	v := NewMenuView(DefaultWidth, DefaultHeight)
	page := MenuPage{Title: "Treadline", Items: [][2]string{{"Practice", ""}, {"Volume", "80%"}, {"Quit", ""}},
		Selected: 1, Hint: "Esc back"}
	v.Show(page)
	if !v.bar.Visible() || v.bar.Position().Y != v.names[1].Position().Y {
		t.Errorf("highlight at y %v (visible %v), selected row at y %v", v.bar.Position().Y, v.bar.Visible(), v.names[1].Position().Y)
	}
	x, w := v.back.Position().X, v.back.Width()
	if mid := x + w/2; math.Abs(float64(mid)-DefaultWidth/2) > 1 {
		t.Errorf("menu panel centred at x %v, want %v", mid, DefaultWidth/2)
	}
	page.Selected = -1
	v.Show(page)
	if v.bar.Visible() {
		t.Error("a page with no row selected shows the highlight")
	}
	big := v.names[0].FontSize()
	for range 12 {
		page.Items = append(page.Items, [2]string{"Row", "value"})
	}
	v.Resize(400, 240)
	if w, h := v.Size(); w != 400 || h != 240 {
		t.Errorf("Size after Resize = %dx%d", w, h)
	}
	v.Show(page)
	if small := v.names[0].FontSize(); small >= big {
		t.Errorf("15 rows in a 400×240 window: font size %v, not below the %v of 3 rows at 1280×720", small, big)
	}
	page.Selected = len(page.Items) - 1
	v.Show(page)
	if n := len(page.Items); !v.names[n-1].Visible() || v.names[0].Visible() {
		t.Errorf("15 rows in a 400×240 window, the last selected: last shown %v, first shown %v; want the rows scrolled",
			v.names[n-1].Visible(), v.names[0].Visible())
	}
}

func TestStatsText(t *testing.T) {
	snap := testSnapshot(3)
	snap.Net.RTT, snap.Net.ClockOffset, snap.Net.ClockError = 0.104, 5.0399, 0.0123
	snap.Net.BytesIn, snap.Net.UpdatesIn = 12300, 45
	snap.Net.Lag, snap.Net.Jitter, snap.Net.Loss = 0.1, 0.02, 0.02
	snap.Net.Dropped, snap.Net.Malformed, snap.Net.Refused, snap.Net.SendErrors, snap.Net.ClockRejected = 4, 1, 2, 3, 5
	snap.Algorithm, snap.Clamp = deadreckon.CubicBezier, deadreckon.ClampUp
	me := &snap.Tanks[0]
	me.Velocity = mgl64.Vec3{0, 0, -10}                               // 36 km/h
	me.Orientation = mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{0, 1, 0}) // facing −Z: north
	got := statsText(snap, me, 59.6, OverlayGhost, false, false)
	for _, want := range []string{"60 fps", "speed 36 km/h", "heading 000° N", "round trip 104 ms", "clock sync ±12.3 ms",
		"12.3 kB/s", "45.0 upd/s", "late or duplicate 4", "malformed 1", "refused 2", "send errors 3",
		"clock samples refused 5", "algorithm bezier", "clamp up", "impairment 100 ms ±20 ms, 2.0% loss", "overlays ghost"} {
		if !strings.Contains(got, want) {
			t.Errorf("stats text lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "5039") || strings.Contains(got, "offset") {
		t.Errorf("stats text shows the raw clock offset:\n%s", got)
	}
	for _, compact := range []bool{false, true} {
		if untimed := statsText(snap, me, 0, 0, false, compact); !strings.HasPrefix(untimed, "-- fps") {
			t.Errorf("stats before a frame was timed (compact %v) start %q, want \"-- fps\"", compact, strings.SplitN(untimed, "\n", 2)[0])
		}
	}
	compact := statsText(snap, me, 59.6, 0, false, true)
	if n := strings.Count(compact, "\n"); n != 1 || !strings.Contains(compact, "36 km/h") {
		t.Errorf("compact stats %q, want two lines with the speed", compact)
	}
	// The counters are for finding faults: off without an overlay or debug (F3).
	for _, c := range []struct {
		name             string
		o                Overlay
		debug, compact   bool
		counters, detail bool // "refused" shown; the full counters' lines shown
	}{
		{"plain", 0, false, false, false, false},
		{"plain compact", 0, false, true, false, false},
		{"debug", 0, true, false, true, true},
		{"debug compact", 0, true, true, true, false},
		{"overlay", OverlayTrail, false, false, true, true},
	} {
		got := statsText(snap, me, 59.6, c.o, c.debug, c.compact)
		if strings.Contains(got, "refused") != c.counters || strings.Contains(got, "clock samples refused") != c.detail {
			t.Errorf("%s: stats\n%s\nwant counters %v, full counters %v", c.name, got, c.counters, c.detail)
		}
		if !strings.Contains(got, "km/h") {
			t.Errorf("%s: stats lack the speed:\n%s", c.name, got)
		}
	}
}

func TestCompassBearing(t *testing.T) {
	for _, c := range []struct {
		yaw   float64
		want  float64
		point string
	}{
		{0, 90, "E"}, {math.Pi / 2, 0, "N"}, {math.Pi, 270, "W"}, {-math.Pi / 2, 180, "S"}, {math.Pi / 4, 45, "NE"},
	} {
		q := mgl64.QuatRotate(c.yaw, mgl64.Vec3{0, 1, 0})
		if b := compassBearing(q); math.Abs(b-c.want) > 1e-6 || compassPoint(b) != c.point {
			t.Errorf("yaw %.2f: bearing %.2f° %s, want %.0f° %s", c.yaw, b, compassPoint(b), c.want, c.point)
		}
	}
}

func TestWatch(t *testing.T) {
	s, err := NewScene(synthTerrain(128, 2, 32, 2), SceneConfig{})
	if err != nil {
		t.Fatal(err)
	}
	snap := testSnapshot(3)
	dist := func(i int) float64 { return s.View().Eye.Sub(snap.Tanks[i].Position).Len() }
	s.Update(snap, 1.0/60)
	if d := dist(0); d > DefaultChaseDistance+chaseLookHeight+1 {
		t.Fatalf("camera is %.1f m from the player's tank", d)
	}
	s.Watch("*")
	s.Update(snap, 2) // a long frame jumps the camera
	if d := dist(1); d > DefaultChaseDistance+chaseLookHeight+1 {
		t.Errorf("watching any remote: camera %.1f m from the first remote tank", d)
	}
	s.Watch("tank-2")
	s.Update(snap, 2)
	if d := dist(2); d > DefaultChaseDistance+chaseLookHeight+1 {
		t.Errorf("watching tank-2: camera %.1f m from it", d)
	}
	// WatchNext cycles through the others and back to the player.
	s.Watch("")
	var names []string
	for i := 0; i < 3; i++ {
		names = append(names, s.WatchNext(snap))
	}
	if strings.Join(names, ",") != "tank-1,tank-2," {
		t.Errorf("WatchNext from none gives %q, want tank-1, tank-2, then yourself", names)
	}
	s.Update(snap, 2)
	if d := dist(0); d > DefaultChaseDistance+chaseLookHeight+1 {
		t.Errorf("back on the player: camera %.1f m from it", d)
	}
}

// TestUpdateAllocatesNothing checks the per-frame path: with the HUD texts not due
// (they are rebuilt four times a second), Scene.Update of 32 tanks with every overlay
// allocates nothing.
func TestUpdateAllocatesNothing(t *testing.T) {
	s, err := NewScene(synthTerrain(256, 2, 32, 4), SceneConfig{Overlays: OverlayAll})
	if err != nil {
		t.Fatal(err)
	}
	snap := benchSnapshot()
	s.Update(snap, 1.0/60) // models and labels are made on first sight
	s.Update(snap, 1.0/60)
	if n := testing.AllocsPerRun(50, func() { s.Update(snap, 1e-4) }); n != 0 {
		t.Errorf("Scene.Update allocates %v times per frame, want 0", n)
	}
}

// TestTanksComeAndGo checks that removing a tank leaves the shared parts intact for
// the others, and that a team change recolours a tank.
func TestTanksComeAndGo(t *testing.T) {
	s, err := NewScene(synthTerrain(64, 2, 16, 2), SceneConfig{})
	if err != nil {
		t.Fatal(err)
	}
	snap := testSnapshot(3)
	s.Update(snap, 1.0/60)
	shader := s.parts.solidMat.Shader()
	snap.Tanks = snap.Tanks[:1] // two tanks leave: their meshes are disposed
	s.Update(snap, 1.0/60)
	if len(s.tanks) != 1 {
		t.Fatalf("%d tank models, want 1", len(s.tanks))
	}
	if got := s.parts.solidMat.Shader(); got != shader || !s.parts.shadowMat.Transparent() {
		t.Errorf("shared materials changed after tanks left: shader %q (want %q), shadow transparent %v",
			got, shader, s.parts.shadowMat.Transparent())
	}
	snap.Tanks[0].Team = 1
	s.Update(snap, 1.0/60)
	e := s.tanks[snap.Tanks[0].ID]
	if e.model.hullMesh.GetGeometry() != s.parts.hull[1] {
		t.Errorf("team change did not swap the hull to team 1's colours")
	}
}

// TestNoShadowsDropsOnePart: without shadows a tank model leaves out its shadow
// patch (one draw call per tank on a software renderer) and keeps every other part.
func TestNoShadowsDropsOnePart(t *testing.T) {
	parts := func(noShadows bool) int {
		s, err := NewScene(synthTerrain(64, 2, 16, 2), SceneConfig{NoShadows: noShadows})
		if err != nil {
			t.Fatal(err)
		}
		snap := testSnapshot(1)
		s.Update(snap, 1.0/60)
		e := s.tanks[snap.Tanks[0].ID]
		if e == nil {
			t.Fatal("no tank entry")
		}
		return len(e.model.root.Children())
	}
	if with, without := parts(false), parts(true); without != with-1 {
		t.Errorf("tank model parts: %d with shadows, %d without; want one fewer (the shadow)", with, without)
	}
}

func TestOpenViewerErrors(t *testing.T) {
	if _, err := OpenViewer(0, 10, "x"); err == nil {
		t.Errorf("OpenViewer(0, 10) succeeded")
	}
	var want error
	switch {
	case testViewer != nil:
		want = ErrWindowOpen // the test window is open
	case os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "":
		want = ErrNoDisplay
	default:
		t.Skip("a display exists but no test window was opened (race build)")
	}
	if _, err := OpenViewer(64, 64, "x"); !errors.Is(err, want) {
		t.Errorf("OpenViewer: err %v, want %v", err, want)
	}
}

// TestTerrainLODByDistance checks that chunks near the camera are drawn finest and
// far ones coarsest, one level each.
func TestTerrainLODByDistance(t *testing.T) {
	tt := synthTerrain(256, 2, 32, 4) // 8×8 chunks of 64 m
	s, err := NewScene(tt, SceneConfig{})
	if err != nil {
		t.Fatal(err)
	}
	snap := testSnapshot(1)
	x, z := -240.0, -240.0 // near a corner: the far corner is ~700 m away
	snap.Tanks[0].Position = mgl64.Vec3{x, testGround(x, z), z}
	s.Update(snap, 1.0/60)
	counts := s.LODCounts()
	total := 0
	for _, c := range counts {
		total += c
	}
	if total != len(tt.Chunks) {
		t.Errorf("LOD counts %v sum to %d, want %d chunks", counts, total, len(tt.Chunks))
	}
	if counts[0] == 0 || counts[len(counts)-1] == 0 {
		t.Errorf("LOD counts %v: want chunks at the finest and at the coarsest level", counts)
	}
	for i, c := range s.terrain.chunks {
		visible := 0
		for lod, m := range c.lods {
			if m.Visible() {
				visible++
				if want := lodFor(boxDistance(s.View().Eye, c.min, c.max), DefaultLODDistance, len(c.lods)); lod != want {
					t.Errorf("chunk %d drawn at level %d, want %d", i, lod, want)
				}
			}
		}
		if visible != 1 {
			t.Errorf("chunk %d has %d levels visible, want 1", i, visible)
		}
	}
}

// TestFeedShowsRecentNotices: the newest notices younger than feedLife are shown,
// newest at the bottom, and older ones are gone.
func TestFeedShowsRecentNotices(t *testing.T) {
	s, err := NewScene(synthTerrain(64, 2, 16, 2), SceneConfig{})
	if err != nil {
		t.Fatal(err)
	}
	snap := testSnapshot(2)
	snap.Time = 100
	snap.Notices = []game.Notice{
		{Kind: game.NoticeJoin, Time: 50, Who: "old"}, // long gone
		{Kind: game.NoticeJoin, Time: 95, Who: "cyd"},
		{Kind: game.NoticeChat, Time: 97, Who: "cyd", Text: "hi"},
		{Kind: game.NoticeTimeout, Time: 99.5, Who: "bob"},
	}
	s.Update(snap, 1.0/60)
	var shown []string
	for _, l := range s.hud.feed.lines {
		if l.Visible() {
			shown = append(shown, l.Text())
		}
	}
	if strings.Join(shown, "|") != "cyd joined|cyd: hi|bob timed out" {
		t.Errorf("feed shows %q", shown)
	}
	// Lines stack upward from above the hint, newest lowest.
	y0 := s.hud.feed.lines[0].Position().Y
	y2 := s.hud.feed.lines[2].Position().Y
	hint := s.hud.hint.Position().Y
	if !(y0 < y2 && y2 < hint) {
		t.Errorf("feed lines at y %.0f and %.0f, hint at %.0f", y0, y2, hint)
	}
	snap.Time = 120
	s.Update(snap, 1.0/60)
	for _, l := range s.hud.feed.lines {
		if l.Visible() {
			t.Errorf("feed still shows %q after 20 s", l.Text())
		}
	}
}

// TestLinkWarning: after a second of silence from the host the HUD says the
// connection is interrupted and when the host gives up; it goes when data flows.
func TestLinkWarning(t *testing.T) {
	s, err := NewScene(synthTerrain(64, 2, 16, 2), SceneConfig{})
	if err != nil {
		t.Fatal(err)
	}
	snap := testSnapshot(2)
	snap.Net.Timeout, snap.Net.Silence = 6, 0.4
	s.Update(snap, 1)
	if s.hud.warn.Visible() {
		t.Error("warning after 0.4 s of silence")
	}
	snap.Net.Silence = 2.3
	s.Update(snap, 1)
	if !s.hud.warn.Visible() || !strings.Contains(s.hud.warn.Text(), "giving up in 4 s") {
		t.Errorf("after 2.3 s of a 6 s timeout: visible %v, %q", s.hud.warn.Visible(), s.hud.warn.Text())
	}
	snap.Net.Silence = 0.01
	s.Update(snap, 1)
	if s.hud.warn.Visible() {
		t.Error("warning stays once data flows again")
	}
}

// TestLabelPlacement checks placeLabel: a free spot is kept, a blocked label moves up
// a step, one blocked all the way is dropped, and labels stay inside the picture.
func TestLabelPlacement(t *testing.T) {
	const w, h = 40, 10
	r, ok := placeLabel(100, 100, w, h, 640, 360, 4, nil)
	if !ok || r != (rect{80, 90, w, h}) {
		t.Errorf("free label at %+v, %v", r, ok)
	}
	taken := []rect{{80, 90, w, h}}
	r, ok = placeLabel(105, 100, w, h, 640, 360, 4, taken)
	if !ok || r != (rect{85, 80, w, h}) {
		t.Errorf("blocked label at %+v, %v; want one step up", r, ok)
	}
	taken = append(taken, rect{85, 80, w, h}, rect{85, 70, w, h})
	if r, ok = placeLabel(105, 100, w, h, 640, 360, 4, taken); ok {
		t.Errorf("label blocked all the way placed at %+v", r)
	}
	if r, _ = placeLabel(2, 3, w, h, 640, 360, 4, nil); r.x != 4 || r.y != 4 {
		t.Errorf("label at the top-left corner placed at %+v, want inside the 4 px margin", r)
	}
	if r, _ = placeLabel(639, 359, w, h, 640, 360, 4, nil); r.x+r.w != 636 || r.y+r.h > 356 {
		t.Errorf("label at the bottom-right corner placed at %+v", r)
	}
}

// TestOverlaysLeaveOwnTankAlone: with every overlay on, the player's own tank gets
// no ghosts, trail, rays or arrows unless the camera watches it.
func TestOverlaysLeaveOwnTankAlone(t *testing.T) {
	s, err := NewScene(synthTerrain(128, 2, 32, 2), SceneConfig{Overlays: OverlayAll})
	if err != nil {
		t.Fatal(err)
	}
	snap := testSnapshot(1) // the player's tank alone, with a trail, clamp hits and motion
	snap.Tanks[0].Trail = []mgl64.Vec3{{-10, 0, 0}, {-5, 0, 0}, {0, 0, 0}}
	s.Update(snap, 1.0/60)
	if n := len(s.lines.buf); n != 0 {
		t.Errorf("own tank alone: %d line floats drawn", n)
	}
	s.Watch("tank-0")
	s.Update(snap, 1.0/60)
	if len(s.lines.buf) == 0 {
		t.Errorf("watching the own tank: no overlay lines")
	}
}

// TestLinesStopShortOfTheEye: segments are cut where they come nearer than the near
// distance along the view, and dropped when wholly nearer.
func TestLinesStopShortOfTheEye(t *testing.T) {
	b := newLineBatch(true)
	b.clipNear(mgl64.Vec3{}, mgl64.Vec3{0, 0, -1}, 4)
	c := teamColor(0)
	b.segment(mgl64.Vec3{0, 0, -1}, mgl64.Vec3{1, 0, -3}, c) // wholly nearer: dropped
	if len(b.buf) != 0 {
		t.Fatalf("a segment nearer than 4 m was drawn: %v", b.buf)
	}
	b.segment(mgl64.Vec3{0, 0, -2}, mgl64.Vec3{0, 2, -10}, c) // cut at depth 4
	if len(b.buf) != 12 {
		t.Fatalf("cut segment: %d floats, want 12", len(b.buf))
	}
	if z, y := b.buf[2], b.buf[1]; math.Abs(float64(z)+4) > 1e-5 || math.Abs(float64(y)-0.5) > 1e-5 {
		t.Errorf("cut segment starts at y %v z %v, want y 0.5 z −4", y, z)
	}
	if z := b.buf[8]; z != -10 {
		t.Errorf("cut segment ends at z %v, want −10", z)
	}
}

// TestLabelJustAboveTurret: from close by and from afar, a tank's label sits its
// lift above the top of the turret's outline, centered on it.
func TestLabelJustAboveTurret(t *testing.T) {
	for _, c := range []struct {
		name     string
		ahead    float64 // remote tank's distance ahead of the player's, m
		watch    bool    // camera on the remote tank itself
		distance float64 // chase distance, m
	}{
		{"near", 12, false, 0}, {"far", 90, false, 0}, {"watched close", 20, true, MinChaseDistance},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := NewScene(synthTerrain(256, 2, 32, 2), SceneConfig{Ground: func(x, z float64) (float64, bool) { return testGround(x, z), true }})
			if err != nil {
				t.Fatal(err)
			}
			snap := &game.Snapshot{Self: 0}
			snap.Tanks = append(snap.Tanks, game.TankView{ID: 1, Name: "me", Local: true,
				Position: mgl64.Vec3{0, testGround(0, 0), 0}, Orientation: mgl64.QuatIdent()})
			snap.Tanks = append(snap.Tanks, game.TankView{ID: 2, Name: "remote", Team: 1,
				Position: mgl64.Vec3{c.ahead, testGround(c.ahead, 0), 0}, Orientation: mgl64.QuatIdent()})
			if c.watch {
				s.Watch("remote")
			}
			s.chase.Distance = c.distance
			s.Update(snap, 2)
			e := s.tanks[2]
			if !e.name.Visible() {
				t.Fatal("no label")
			}
			v := s.View()
			top := roofPoint(&snap.Tanks[1]).Add(v.Orientation.Rotate(mgl64.Vec3{0, defaultShape().turretRadius, 0}))
			x, y, _ := v.Project(top)
			pos := e.name.Position()
			bottom := float64(pos.Y + e.name.Height())
			want := y - labelLift*float64(s.hud.scale)
			if math.Abs(bottom-want) > 1.5 {
				t.Errorf("label bottom at y %.1f, turret top at %.1f: want %.1f", bottom, y, want)
			}
			if mid := float64(pos.X + e.name.Width()/2); math.Abs(mid-x) > 1.5 {
				t.Errorf("label centered at x %.1f, turret at %.1f", mid, x)
			}
		})
	}
}

// TestGhostOnlyWhereItDiffers: a parked tank whose ghosts sit where it is shown gets
// no ghost lines; one shown short of its projection gets both footprints on the
// ground and the error line a metre above its turret roof.
func TestGhostOnlyWhereItDiffers(t *testing.T) {
	s, err := NewScene(synthTerrain(256, 2, 32, 2), SceneConfig{Overlays: OverlayGhost,
		Ground: func(x, z float64) (float64, bool) { return testGround(x, z), true }})
	if err != nil {
		t.Fatal(err)
	}
	s.Watch("mover")
	s.Update(ghostSnapshot(0.03, 0.03), 1.0/60) // within ghostMin: nothing to show
	if n := len(s.lines.buf); n != 0 {
		t.Errorf("ghosts on the shown tank: %d line floats drawn", n)
	}
	snap := ghostSnapshot(2.5, 0.6)
	s.Update(snap, 1.0/60)
	mover, known := snap.Tanks[1], snap.Known[1]
	// The footprints lie in the hull's plane on the ground under the middle (here
	// level: the ghosts face +X with no tilt), the error line errorLift up.
	var low, high int
	sh := defaultShape()
	footLength, _ := sh.footSize()
	errorLift := sh.errorLift()
	for i := 0; i+5 < len(s.lines.buf); i += 6 {
		x, y := float64(s.lines.buf[i]), float64(s.lines.buf[i+1])
		centre := known.LastKnownProjected.Position[0]
		if x < -20-2.5-footLength/2-1 || x > centre+footLength/2+noseLength+1e-3 {
			t.Errorf("line vertex at x %.2f, outside the ghosts' footprints", x)
		}
		ground := testGround(x, 0)
		for _, g := range []mgl64.Vec3{known.LastKnown.Position, known.LastKnownProjected.Position} {
			if math.Abs(x-g[0]) <= footLength/2+noseLength+1e-3 { // float32 vertices
				ground = testGround(g[0], 0)
			}
		}
		switch above := y - ground; {
		case math.Abs(above-footLift) < 0.5:
			low++
		case math.Abs(above-errorLift) < 0.5:
			high++
		default:
			t.Errorf("line vertex %.2f m above the ground, want about %v (footprints) or %v (error line)", above, footLift, errorLift)
		}
	}
	// Two footprints of 4 edges and a two-stroke chevron, the link, and the error
	// line's rise: all ends low; the rise's top and the error line's two ends high.
	if wantLow := 2*(2*(4+2)) + 2 + 1; low != wantLow || high != 3 {
		t.Errorf("%d vertices low and %d high, want %d and 3", low, high, wantLow)
	}
	if top := sh.roof()[1] + cupolaHeight; errorLift < top+1 || mover.Position[1]+errorLift < mover.Position[1]+top {
		t.Errorf("error line at %.2f m, not clear of the cupola's top at %.2f m", errorLift, top)
	}
}

// TestLabelInfoFollowsTheStaleRule: a tank's info label counts the heartbeats its
// update age has missed, allowing each its stagger, and says STALE only when the
// match marks the tank so.
func TestLabelInfoFollowsTheStaleRule(t *testing.T) {
	for _, c := range []struct {
		age       float64
		stale     bool
		heartbeat float64
		mode      deadreckon.Mode
		want      string
	}{
		{0.4, false, 1, deadreckon.ModeHigh, "age 0.40 s  err 0.12 m  high"},
		{1.08, false, 1, deadreckon.ModeHigh, "age 1.08 s  err 0.12 m  high"}, // a heartbeat a little late
		{2.59, false, 1, deadreckon.ModeHigh, "age 2.59 s, 2 missed  err 0.12 m  high"},
		{4.6, true, 1, deadreckon.ModeHigh, "age 4.60 s, 4 missed  STALE  high"},
		{7, false, 0, deadreckon.ModeHigh, "age 7.00 s  err 0.12 m  high"}, // no heartbeat known
		{0.4, false, 1, deadreckon.ModeLow, "age 0.40 s  err 0.12 m  low"}, // a far tank
	} {
		tv := game.TankView{UpdateAge: c.age, Stale: c.stale, Error: 0.12, Mode: c.mode}
		if got := labelInfo(&tv, c.heartbeat); got != c.want {
			t.Errorf("age %v s, stale %v, heartbeat %v s: %q, want %q", c.age, c.stale, c.heartbeat, got, c.want)
		}
	}
}

// TestDISEntitiesApart: a DIS entity wears a colour no team wears, and the
// scoreboards list it on team "DIS", unscored and not counted among the players.
func TestDISEntitiesApart(t *testing.T) {
	for team := range len(teamColors) {
		if teamColor(team) == teamColor(game.TeamDIS) {
			t.Errorf("team %d wears the DIS colour", team)
		}
	}
	if k := colorIndex(game.TeamDIS); k != len(teamColors) {
		t.Errorf("the DIS colour's model index is %d, want %d", k, len(teamColors))
	}
	snap := &game.Snapshot{Self: 0, Tanks: []game.TankView{
		{Name: "me", Team: 1, Local: true},
		{Name: "circler [DIS]", Team: game.TeamDIS},
	}}
	rows, _, _ := scoresRows(snap, 0, 40)
	if rows[0][0] != "Players (1)" {
		t.Errorf("scoreboard title %q, want %q", rows[0][0], "Players (1)")
	}
	if last := rows[len(rows)-1]; last[0] != "circler [DIS]" || last[1] != "DIS" {
		t.Errorf("scoreboard's last row %q, want the circler on team DIS", last)
	}
	snap.Combat.Enabled = true
	snap.Combat.Scores = []combat.Score{{Name: "me", Team: 1, Kills: 2}}
	rows, _, _ = scoresRows(snap, 0, 40)
	// Title, gap; the player's team, its line; the DIS block beside it.
	if len(rows) != 4 || !slices.Equal(rows[3][boardCols+1:], []string{"", "circler [DIS]", "-", "-", "DIS"}) ||
		rows[0][1] != "Scoreboard: 1 players" {
		t.Errorf("combat scoreboard %q, want the circler in a block of its own, unscored, not a player", rows)
	}
}

// TestProtectedRinged: a tank under spawn protection gets two rings, one without it
// none.
func TestProtectedRinged(t *testing.T) {
	b := &lineBatch{}
	drawProtected(b, []game.TankView{{ID: 1, Protected: true}, {ID: 2, Position: mgl64.Vec3{20, 0, 0}}})
	const perRing, rings, floats = 16, 2, 12 // segments, rings, floats per segment
	if got := len(b.buf) / floats; got != perRing*rings {
		t.Errorf("%d segments drawn for one protected tank and one not, want %d", got, perRing*rings)
	}
}

// TestTeamLabels: the scoreboard, the results and the clock name teams by colour.
func TestTeamLabels(t *testing.T) {
	if got := teamLabel(0); got != "-" {
		t.Errorf("teamLabel(0) = %q, want -", got)
	}
	if got := teamLabel(2); got != "Yellow" {
		t.Errorf("teamLabel(2) = %q, want Yellow", got)
	}
	cv := &game.CombatView{Remaining: math.Inf(1), Scores: []combat.Score{{Name: "a", Team: 1, Kills: 3}, {Name: "b", Team: 2, Kills: 1}}}
	if got, want := matchClock(cv), "Blue: 3   Yellow: 1"; got != want {
		t.Errorf("matchClock = %q, want %q", got, want)
	}
}

// TestMatchClockLine: the top line reads the time left in whole seconds, rounded up,
// and each of teams 1…4 on the scoreboard with its kills summed (a team with no kills
// yet shows 0, tanks of no team or of other teams count for none), and building it
// allocates nothing until it is written out.
func TestMatchClockLine(t *testing.T) {
	scores := []combat.Score{{Team: 3, Kills: 2}, {Team: 1}, {Team: 3, Kills: 4}, {Team: 0, Kills: 9}, {Team: 7, Kills: 5}}
	for _, tc := range []struct {
		name string
		cv   game.CombatView
		want string
	}{
		{"untimed, no scores", game.CombatView{Remaining: math.Inf(1)}, ""},
		{"timed", game.CombatView{Remaining: 299.2}, "5:00"},
		{"timed, scores", game.CombatView{Remaining: 61, Scores: scores}, "1:01   Blue: 0   Green: 6"},
		{"over", game.CombatView{Remaining: 10, Over: true, Scores: scores}, "Blue: 0   Green: 6"},
	} {
		if got := matchClock(&tc.cv); got != tc.want {
			t.Errorf("%s: matchClock = %q, want %q", tc.name, got, tc.want)
		}
	}
	cv := &game.CombatView{Remaining: 61, Scores: scores}
	if n := testing.AllocsPerRun(20, func() { _ = clockLineOf(cv) }); n != 0 {
		t.Errorf("clockLineOf allocates %.0f times, want 0", n)
	}
}

// TestMinimapArrowSamePixels: the minimap's triangles, filled by comparing signs,
// cover exactly the pixels that the barycentric weights (divided by the area) give,
// either way round, at every size, place and heading, with edges through pixel
// centres too; and an arrow, outlined, is the same picture as filled that way.
func TestMinimapArrowSamePixels(t *testing.T) {
	const side = 48
	newMap := func() *minimap {
		return &minimap{size: side, frame: image.NewRGBA(image.Rect(0, 0, side, side))}
	}
	// reference fills triangle a, b, c as the weights say; false: no area.
	reference := func(m *minimap, ax, ay, bx, by, cx, cy float64, fill imgcolor.RGBA) bool {
		minX, maxX := int(math.Floor(min(ax, bx, cx))), int(math.Ceil(max(ax, bx, cx)))
		minY, maxY := int(math.Floor(min(ay, by, cy))), int(math.Ceil(max(ay, by, cy)))
		edge := func(ax, ay, bx, by, x, y float64) float64 { return (bx-ax)*(y-ay) - (by-ay)*(x-ax) }
		area := edge(ax, ay, bx, by, cx, cy)
		if area == 0 {
			return false
		}
		for y := minY; y <= maxY; y++ {
			for x := minX; x <= maxX; x++ {
				px, py := float64(x)+0.5, float64(y)+0.5
				w0 := edge(bx, by, cx, cy, px, py) / area
				w1 := edge(cx, cy, ax, ay, px, py) / area
				w2 := edge(ax, ay, bx, by, px, py) / area
				if w0 >= 0 && w1 >= 0 && w2 >= 0 {
					m.set(x, y, fill)
				}
			}
		}
		return true
	}
	fill, dark := imgcolor.RGBA{R: 200, G: 40, B: 40, A: 255}, imgcolor.RGBA{A: 255}
	rng := rand.New(rand.NewPCG(7, 33))
	coord := func() float64 {
		if rng.IntN(3) == 0 {
			return float64(rng.IntN(side+8)-4) + 0.5 // a pixel centre: edges through centres
		}
		return rng.Float64()*(side+8) - 4
	}
	filled := 0
	for i := range 4000 {
		v := [6]float64{coord(), coord(), coord(), coord(), coord(), coord()}
		if i%50 == 0 {
			v[4], v[5] = v[0], v[1] // no area
		}
		got, want := newMap(), newMap()
		okGot := got.fillTriangle(v[0], v[1], v[2], v[3], v[4], v[5], fill)
		okWant := reference(want, v[0], v[1], v[2], v[3], v[4], v[5], fill)
		if okGot != okWant || !bytes.Equal(got.frame.Pix, want.frame.Pix) {
			t.Fatalf("triangle %v: filled %v, the weights %v, or other pixels", v, okGot, okWant)
		}
		for k := 0; k < len(got.frame.Pix); k += 4 {
			if got.frame.Pix[k] == fill.R {
				filled++
			}
		}
		// The same triangle as an arrow.
		px, py, h, l := coord(), coord(), rng.Float64()*2*math.Pi, 3+rng.Float64()*15
		dx, dy := math.Cos(h), -math.Sin(h)
		got, want = newMap(), newMap()
		got.arrow(px, py, dx, dy, l, fill, dark)
		tipX, tipY := px+dx*l*0.6, py+dy*l*0.6
		bx, by := px-dx*l*0.4, py-dy*l*0.4
		w := l * 0.38
		lx, ly, rx, ry := bx-dy*w, by+dx*w, bx+dy*w, by-dx*w
		if reference(want, tipX, tipY, lx, ly, rx, ry, fill) {
			want.line(tipX, tipY, lx, ly, dark, 1)
			want.line(lx, ly, rx, ry, dark, 1)
			want.line(rx, ry, tipX, tipY, dark, 1)
		}
		if !bytes.Equal(got.frame.Pix, want.frame.Pix) {
			t.Fatalf("arrow at (%v, %v) heading %v length %v: pixels differ from the weights'", px, py, h, l)
		}
	}
	if filled == 0 {
		t.Fatal("no triangle filled a pixel")
	}
}

// TestSquareSamePixels: a crowd's dot paints, pixel for pixel, what blending black
// over its border and setting its inside one pixel at a time paints, over any ground,
// at every size and place, across the minimap's edges too.
func TestSquareSamePixels(t *testing.T) {
	const side = 24
	rng := rand.New(rand.NewPCG(5, 12))
	newMap, ground := noiseMinimap(rng, side)
	reference := func(m *minimap, px, py float64, n int, c imgcolor.RGBA) {
		a := float64(dotEdge)
		x0, y0 := int(math.Floor(px))-n/2, int(math.Floor(py))-n/2
		for y := y0 - 1; y <= y0+n; y++ {
			for x := x0 - 1; x <= x0+n; x++ {
				if x == x0-1 || y == y0-1 || x == x0+n || y == y0+n {
					if x >= 0 && y >= 0 && x < side && y < side {
						o := m.frame.Pix[y*m.frame.Stride+4*x:]
						for k := range 3 {
							o[k] = uint8(float64(o[k])*(1-a) + 0*a)
						}
						o[3] = 255
					}
					continue
				}
				m.set(x, y, c)
			}
		}
	}
	got, want := newMap(), newMap()
	for i := range 3000 {
		px, py := rng.Float64()*(side+10)-5, rng.Float64()*(side+10)-5
		n := 1 + rng.IntN(4)
		c := imgcolor.RGBA{R: uint8(rng.IntN(256)), G: uint8(rng.IntN(256)), B: uint8(rng.IntN(256)), A: 255}
		got.square(px, py, n, c)
		reference(want, px, py, n, c)
		if !bytes.Equal(got.frame.Pix, want.frame.Pix) {
			t.Fatalf("dot %d at (%.2f, %.2f), side %d: other pixels than blend and set paint", i, px, py, n)
		}
		if i%100 == 99 { // fresh ground now and then, so dots do not only darken dots
			copy(got.frame.Pix, ground)
			copy(want.frame.Pix, ground)
		}
	}
}

// TestDiscSamePixels: a density disc, its rows clipped to its chord, blends the
// same pixels to the same values as testing every pixel of its bounding square,
// for discs of every size, inside the minimap and across its edges.
func TestDiscSamePixels(t *testing.T) {
	const side = 40
	rng := rand.New(rand.NewPCG(8, 21))
	newMap, _ := noiseMinimap(rng, side)
	reference := func(m *minimap, px, py, r float64, c imgcolor.RGBA, a float64) {
		for y := max(0, int(math.Floor(py-r))); y <= min(side-1, int(math.Ceil(py+r))); y++ {
			for x := max(0, int(math.Floor(px-r))); x <= min(side-1, int(math.Ceil(px+r))); x++ {
				dx, dy := float64(x)+0.5-px, float64(y)+0.5-py
				d2 := (dx*dx + dy*dy) * (1 / (r * r))
				if d2 >= 1 {
					continue
				}
				k := a * (1 - d2)
				o := m.frame.Pix[y*m.frame.Stride+4*x:]
				o[0] = uint8(float64(o[0])*(1-k) + float64(c.R)*k)
				o[1] = uint8(float64(o[1])*(1-k) + float64(c.G)*k)
				o[2] = uint8(float64(o[2])*(1-k) + float64(c.B)*k)
				o[3] = 255
			}
		}
	}
	for i := range 3000 {
		got, want := newMap(), newMap()
		px, py := rng.Float64()*(side+20)-10, rng.Float64()*(side+20)-10
		if i%3 == 0 {
			px, py = math.Round(px), math.Round(py)+0.5 // rims through pixel centres
		}
		r := 0.2 + rng.Float64()*20
		if i%5 == 0 {
			r = math.Round(r)
		}
		c := imgcolor.RGBA{R: uint8(rng.IntN(256)), G: uint8(rng.IntN(256)), B: uint8(rng.IntN(256)), A: 255}
		got.disc(px, py, r, c, 0.6)
		reference(want, px, py, r, c, 0.6)
		if !bytes.Equal(got.frame.Pix, want.frame.Pix) {
			t.Fatalf("disc %d at (%.2f, %.2f), radius %.2f: other pixels than the whole square's test blends", i, px, py, r)
		}
	}
}

// noiseMinimap returns a maker of minimaps side pixels square on one ground of
// random pixels, and that ground's pixels.
func noiseMinimap(rng *rand.Rand, side int) (func() *minimap, []uint8) {
	ground := make([]uint8, 4*side*side)
	for i := range ground {
		ground[i] = uint8(rng.IntN(256))
	}
	return func() *minimap {
		m := &minimap{size: side, frame: image.NewRGBA(image.Rect(0, 0, side, side))}
		copy(m.frame.Pix, ground)
		return m
	}, ground
}
