// Package client is the Treadline desktop client: the main menu and its settings
// (kept as JSON in the user's config directory), the Join menu's live search for
// matches (the local network and list servers, with pings it measures; FindConfig),
// the player's keys and mouse turned into a physics.Input, the pause menu, chat, the
// sound, the replay viewer and the kill camera after a death (Display.KillCam: the
// last seconds the match kept in memory, replayed from the shooter's side while the
// wreck waits).
//
// One window loop shows every screen (the menu, a match's connecting screen, a
// match, the panel saying how a match ended, a replay), as Ebitengine's RunGame does:
// each screen lays itself out, updates and draws once a frame, and can hand the
// window to the next screen; frame pacing, screenshots, -bench-frames, resizing and
// closing the window are the loop's. RunGame runs the whole game in it: the menu
// hands over to a Connecting screen, which starts the match on a goroutine, shows
// its steps as they pass (Esc cancels) and hands over to the match, or back to the
// menu with the failure in one sentence; the match's end brings the menu back.
// RunMenu, Run and RunReplay each start it on one screen. The match and
// the replay viewer share one Display configuration. The client alone advances the
// match: Run steps the Match once a frame with the player's input, takes its
// snapshot and hands it to a render.Scene, which only draws.
//
// GLFW and OpenGL must be used from the main OS thread, which package render locks
// the main goroutine to, so a program calls RunMenu and Run straight from main:
//
//	func main() {
//		m, sess, err := session.Practice(ctx, session.PracticeConfig{})
//		if err != nil {
//			log.Fatal(err)
//		}
//		defer sess.Close()
//		cfg := client.RunConfig{Clock: m.Now, Display: client.Display{
//			Terrain:  render.TerrainFromMap(m.Terrain(), 0),
//			Ground:   m.Terrain().HeightAt,
//			Raycast:  m.Terrain().Raycast,
//			Overlays: render.OverlayGhost | render.OverlayTrail,
//		}}
//		if err := client.Run(ctx, cfg, m); err != nil { // *game.Match is a client.Match
//			log.Fatal(err)
//		}
//	}
//
// The tests that open a window need a display: run them under xvfb-run. With -race
// they run in a child test process built without the race detector.
package client
