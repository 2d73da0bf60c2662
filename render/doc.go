// Package render draws a Treadline match in a desktop window with g3n: heightmap
// terrain lit by a sun and cut into chunks with culling and levels of detail, a sky
// dome, the map border, tanks with turrets and guns in team colours, a chase camera,
// the HUD and the dead-reckoning debug overlays. It is the only package that talks to
// OpenGL and GLFW; everything it draws comes from a game.Snapshot, and it never
// advances the simulation.
//
// GLFW and OpenGL must be used from the main OS thread. The package locks the main
// goroutine to that thread in init, so a program calls Run (or OpenViewer and the
// Viewer methods) straight from main:
//
//	func main() {
//		m, sess, err := session.Practice(ctx, session.PracticeConfig{})
//		if err != nil {
//			log.Fatal(err)
//		}
//		defer sess.Close()
//		cfg := render.RunConfig{
//			Terrain:  render.TerrainFromMap(m.Terrain(), 0),
//			Ground:   m.Terrain().HeightAt,
//			Raycast:  m.Terrain().Raycast,
//			Clock:    m.Now,
//			Overlays: render.OverlayGhost | render.OverlayTrail,
//		}
//		if err := render.Run(ctx, cfg, m); err != nil { // *game.Match is a Session
//			log.Fatal(err)
//		}
//	}
//
// Lower down, a Scene turns snapshots into a node graph and a Viewer draws it:
//
//	v, err := render.OpenViewer(1280, 720, "treadline")
//	s, err := render.NewScene(terrain, render.SceneConfig{})
//	s.Update(&snap, dt)
//	err = v.Draw(s)
//	img := v.Capture() // before Swap
//	v.Swap()
//
// Rendering tests need a display: run them under xvfb-run. With -race they run in a
// child test process built without the race detector, whose pointer checks reject
// g3n's vertex uploads.
//
// The world frame is Y up, right-handed, meters and radians; this package converts
// mgl64 values to g3n's float32 math32 in one place (convert.go).
package render

import "runtime"

func init() {
	// GLFW requires the main thread; init runs on it.
	runtime.LockOSThread()
}
