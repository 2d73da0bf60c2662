// Package session builds matches on real QUIC sessions: Practice runs a local host with
// bots behind an impaired link, Host hosts a match others join, Join joins one, and
// Serve runs a headless host with bots. Serve reports every step's ServeStatus
// (players, and the MatchState: waiting, playing, idle, ended) to ServeConfig.Tick and
// returns when the match ends by its rules (ServeConfig.IdleTimeout without players,
// or ServeConfig.Rounds rounds played).
//
//	m, sess, err := session.Practice(ctx, session.PracticeConfig{Match: game.Config{Name: "ann"}})
//	if err != nil {
//		return err
//	}
//	defer sess.Close()
package session
