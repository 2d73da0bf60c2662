package render

import (
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/internal/gltest"
)

// gl serves work to the main OS thread, where the test window lives.
var gl gltest.Harness

// testViewer is the one window of the test process, or nil when there is none (see
// gl.NoWindow). Tests reach it only through onMain.
var testViewer *Viewer

// TestMain opens the window on the main thread and serves onMain calls there while
// the tests run on other goroutines.
func TestMain(m *testing.M) {
	gl.Main(m, drawingTests, func() (func(), error) {
		v, err := OpenViewer(testW, testH, "treadline render test")
		if err != nil {
			return nil, err
		}
		testViewer = v
		return v.Close, nil
	})
}

// drawingTests matches the tests that need a window.
const drawingTests = "^(TestFeedChatAndWarningDrawn|TestLabelsHiddenBehindHillsAndApart|TestGhostFootprintsReadFromTheChaseCamera|TestLegendShowsWithOverlays|TestMinimapBlips|TestHUDScalesWithTheWindow|TestSkyAboveTerrainBelow|TestTanksWhereTheWorldSaysTheyAre|TestOverlayToggles|TestResizeAndCorruptPoses|TestPracticeMatch|TestWindowResize|TestFrustumCulling|" +
	"TestCombatIsDrawn|TestHitMarkerDrawn|TestDamageIndicatorDrawn|TestKillerMarkedWhileWreck|TestResultsScreenDrawn|" +
	"TestWatchedWithAllOverlaysLit|TestFairSpawnDrawn|TestMenuDrawnInsideTheWindow|TestHUDFitsAnySize|TestKillFeedTeamColours|TestKillCamLabels|TestResultsFitAnySize|TestCrowdReadable|" +
	"TestFarTankStillDrawn|TestLabelCapKeepsTheNearest)$"

// onMain runs f on the main thread and waits for it.
func onMain(f func()) { gl.Do(f) }

// needViewer skips t when no window could be opened.
func needViewer(t *testing.T) *Viewer {
	t.Helper()
	if testViewer == nil {
		t.Skipf("no window: %v", gl.NoWindow())
	}
	return testViewer
}

const testW, testH = 640, 360

// synthTerrain is a rolling heightfield over [−half, half]² cut into chunks of
// cells×cells cells of size cell meters, with levels of detail by halving.
func synthTerrain(half, cell float64, cells, lods int) Terrain {
	return terrainOf(half, cell, cells, lods, testGround)
}

// terrainOf is synthTerrain over any height function.
func terrainOf(half, cell float64, cells, lods int, height func(x, z float64) float64) Terrain {
	n := int(math.Round(2 * half / cell))
	normal := func(x, z float64) mgl64.Vec3 {
		const e = 0.5
		dx := (height(x+e, z) - height(x-e, z)) / (2 * e)
		dz := (height(x, z+e) - height(x, z-e)) / (2 * e)
		return mgl64.Vec3{-dx, 1, -dz}.Normalize()
	}
	var t Terrain
	for cz := 0; cz < n; cz += cells {
		for cx := 0; cx < n; cx += cells {
			var chunk []Mesh
			for lod := 0; lod < lods; lod++ {
				step := 1 << lod
				var m Mesh
				side := cells/step + 1
				for j := 0; j < side; j++ {
					for i := 0; i < side; i++ {
						x := -half + float64(cx+i*step)*cell
						z := -half + float64(cz+j*step)*cell
						h := height(x, z)
						nv := normal(x, z)
						m.Positions = append(m.Positions, float32(x), float32(h), float32(z))
						m.Normals = append(m.Normals, float32(nv[0]), float32(nv[1]), float32(nv[2]))
					}
				}
				for j := 0; j+1 < side; j++ {
					for i := 0; i+1 < side; i++ {
						a := uint32(j*side + i)
						b, c, d := a+1, a+uint32(side), a+uint32(side)+1
						// Counter-clockwise seen from above (+Y): a, c, b and b, c, d.
						m.Indices = append(m.Indices, a, c, b, b, c, d)
					}
				}
				chunk = append(chunk, m)
			}
			t.Chunks = append(t.Chunks, chunk)
		}
	}
	t.Rocks = []Rock{{Center: mgl64.Vec3{40, height(40, 60), 60}, Radius: 3, Height: 2.5}}
	return t
}

// testGround is synthTerrain's height function, for placing tanks.
func testGround(x, z float64) float64 {
	return 6*math.Sin(x/37)*math.Cos(z/29) + 3*math.Sin((x+z)/13) + 0.0004*(x*x+z*z)
}

// testSnapshot returns a snapshot with the player's tank at the origin facing +X and
// n-1 remote tanks ahead of it.
func testSnapshot(n int) *game.Snapshot {
	snap := &game.Snapshot{Self: 0}
	for i := 0; i < n; i++ {
		x, z := 30.0*float64(i), 12.0*float64(i%3-1)*float64(min(i, 1))
		pos := mgl64.Vec3{x, testGround(x, z), z}
		q := geom.YawQuat(0.4 * float64(i))
		tv := game.TankView{
			ID: uint32(i + 1), Name: fmt.Sprintf("tank-%d", i), Team: i % 2, Local: i == 0,
			Position: pos, Orientation: q, Turret: 0.3, Gun: 0.1,
			Velocity: mgl64.Vec3{5, 0, 0}, Acceleration: mgl64.Vec3{0, 0, 1},
		}
		var kn game.Known
		if i > 0 {
			lk := pos.Add(mgl64.Vec3{-4, 0, 2})
			kn.LastKnown.Position, kn.LastKnown.Orientation = lk, q
			kn.LastKnownProjected.Position, kn.LastKnownProjected.Orientation = pos.Add(mgl64.Vec3{3, 0, -2}), q
			tv.UpdateAge, tv.Error = 0.25, 3.6
			for k := 0; k < 10; k++ {
				p := pos.Add(mgl64.Vec3{-2 * float64(k), 0, 0.1 * float64(k*k)})
				tv.Trail = append(tv.Trail, mgl64.Vec3{p[0], testGround(p[0], p[2]), p[2]})
			}
		}
		tv.Clamped = true
		for k := range tv.ClampHits {
			a := float64(k) * 2 * math.Pi / 3
			h := pos.Add(mgl64.Vec3{3 * math.Cos(a), 0, 3 * math.Sin(a)})
			tv.ClampHits[k] = mgl64.Vec3{h[0], testGround(h[0], h[2]), h[2]}
		}
		tv.GroundNormal = mgl64.Vec3{0, 1, 0}
		snap.Tanks = append(snap.Tanks, tv)
		snap.Known = append(snap.Known, kn)
	}
	return snap
}
