// Package replay plays a match recording (package record) back. Load reads a file into
// a Recording: every event the recorder's match handled at the time it handled it,
// the recorder's ticks and clock offsets, and per tank its received updates with
// their arrival times, its published updates and its true poses. A damaged file loads
// up to the damage (Recording.Stopped says where in one line).
//
// A Player steps a game.Match on a Link that hands those events out as the recording's
// clock reaches them, so every tank is reckoned from its recorded updates exactly as a
// live client would: with the recording's own dead reckoning and the same ticks, it
// shows what the recorder's screen showed; with another algorithm (SetAlgorithm), what
// a player using it would have seen. On top of the match's snapshot it adds, as
// game.Ghost values, a second algorithm's view of every tank (SetAlt, the A/B
// comparison), the true pose of every tank whose truth the recording holds with its
// error, and the kill camera's view (KillCam): the seconds before a kill with the
// target as the shooter saw it. ReadRing reads what a record.Ring holds, the last
// seconds of a match still being played, for the kill camera after a death.
//
// Delayed dead reckoning is the Player's default, and the right one for watching: a
// recording already holds every update's future, so the delayed reckoner is handed
// each update early and interpolates the present between two real updates, without
// the delay it needs live.
//
//	rec, err := replay.Load("match.tread")
//	if err != nil { … } // not a recording, or of another version
//	if rec.Stopped != nil { fmt.Println(rec.Stopped) } // damaged: plays what is readable
//	p, err := replay.NewPlayer(rec, replay.PlayerConfig{Map: valley})
//	defer p.Close() // a crowd's reckoning goroutines
//	for each frame {
//		p.Advance(dt) // at p.Speed(), unless paused; Seek, StepFrame, SetAlgorithm…
//		p.Snapshot(&snap)
//	}
//
// A Recording is read-only once loaded and may be shared; a Player and a Link are not
// safe for concurrent use.
package replay
