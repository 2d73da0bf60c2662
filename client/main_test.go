package client

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/gltest"
	"github.com/treadline/treadline/render"
	"github.com/treadline/treadline/terrain"
)

// gl serves work to the main OS thread, where the test window lives.
var gl gltest.Harness

// testViewer is the one window of the test process, or nil when there is none (see
// gl.NoWindow). Tests reach it only through gl.Do.
var testViewer *render.Viewer

// drawingTests matches the tests that need a window.
const drawingTests = "^(TestMenuFlow|TestPauseMenu|TestRunInMenuWindow|TestLoop|TestReplayViewer|TestJoinMenuFindsAndJoins|TestDeathKillCam|TestWindowLoop|TestConnectingScreen|TestAimMarkerEveryFrame)$"

// sceneTests matches the tests that build a scene without a window (newTestScene) and
// feed it keys and frames by hand on their one goroutine, through code that starts no
// other: the race detector has nothing to watch there and makes each scene several
// times dearer (render.NewScene: 3.7 s under it at load 12, 0.5 s without), so under
// -race they run beside the drawing tests, in the child built without it.
const sceneTests = "^(TestTapShorterThanFrame|TestPanelsHoldAim|TestRespawnAimsAhead|TestHelpShowsBoundKeys|TestPauseStopsAPausableMatch|TestKeys|TestHeldKeys|TestChatBox|TestScoreboardPaging)$"

// inChild matches the tests the child runs under -race.
var inChild = regexp.MustCompile(drawingTests + "|" + sceneTests)

const testW, testH = 640, 360

// TestMain opens the window on the main thread and serves gl.Do calls there while
// the tests run on other goroutines.
func TestMain(m *testing.M) {
	gl.Main(m, inChild.String(), func() (func(), error) {
		v, err := render.OpenViewer(testW, testH, "treadline client test")
		if err != nil {
			return nil, err
		}
		testViewer = v
		return v.Close, nil
	})
}

// needViewer skips t when no window could be opened.
func needViewer(t *testing.T) *render.Viewer {
	t.Helper()
	if testViewer == nil {
		t.Skipf("no window: %v", gl.NoWindow())
	}
	return testViewer
}

// testMap is a small generated map for the tests' scenes.
func testMap(t *testing.T) *terrain.Map {
	t.Helper()
	mp, err := terrain.Generate(terrain.GenerateConfig{Seed: 7, Size: 256, Samples: 129})
	if err != nil {
		t.Fatalf("generate map: %v", err)
	}
	return mp
}

// newTestScene is a scene over testMap at the test window's size, as Run builds it.
func newTestScene(t *testing.T) (*render.Scene, *terrain.Map) {
	t.Helper()
	if top, _, _ := strings.Cut(t.Name(), "/"); errors.Is(gl.NoWindow(), gltest.ErrInChild) && inChild.MatchString(top) {
		t.Skip("runs without the race detector in the child process")
	}
	mp := testMap(t)
	s, err := render.NewScene(render.TerrainFromMap(mp, 0), render.SceneConfig{Width: testW, Height: testH,
		Ground: mp.HeightAt, Help: helpLines(DefaultSettings())})
	if err != nil {
		t.Fatal(err)
	}
	return s, mp
}

// tanksOn returns a snapshot of n tanks on mp's ground: the player's at the middle
// facing +X (heading 0), the others in a row ahead of it, facing the other way.
func tanksOn(mp *terrain.Map, n int) *game.Snapshot {
	snap := &game.Snapshot{Self: 0}
	for i := range n {
		x := 20.0 * float64(i)
		y, _ := mp.HeightAt(x, 0)
		yaw := 0.0
		if i > 0 {
			yaw = 3
		}
		snap.Tanks = append(snap.Tanks, game.TankView{ID: uint32(i + 1), Name: fmt.Sprintf("tank-%d", i), Team: i % 2,
			Local: i == 0, Position: mgl64.Vec3{x, y, 0}, Orientation: mgl64.QuatRotate(yaw, mgl64.Vec3{0, 1, 0})})
	}
	return snap
}
