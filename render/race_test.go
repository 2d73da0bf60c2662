//go:build race

package render

// raceDetector reports a -race build. g3n uploads vertex buffers through a cast to a
// 512 MB array (math32.ArrayF32.ToFloat32), which the race detector's pointer checks
// reject, so drawing tests run in a child test process built without -race.
const raceDetector = true
