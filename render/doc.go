// Package render turns a game.Snapshot into pictures with g3n: heightmap terrain lit
// by a sun and cut into chunks with culling and levels of detail, a sky dome, the map
// border, tanks with turrets and guns in team colours, combat effects, a chase
// camera, the HUD (figures, minimap, labels, feed, help, players list) and the
// dead-reckoning debug overlays; and a menu page, over a match or alone. It is the
// only package that draws with OpenGL. It reads snapshots and never advances the
// simulation; the desktop client (package client) steps the match, reads the
// player's input and tells a Scene what to show.
//
// GLFW and OpenGL must be used from the main OS thread. The package locks the main
// goroutine to that thread in init, so a program opens the Viewer and calls its
// methods straight from main. A Scene turns snapshots into a node graph and a Viewer
// draws it:
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
