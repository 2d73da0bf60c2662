// Package session wires matches to the network: Practice starts an in-process host
// with bots and joins it over QUIC through an impaired link, Host listens for players
// and plays, Join connects to a host, and Serve runs a headless host with bots until
// its match ends. Each host referees combat with a referee.Referee; each returned
// game.Match is stepped by the caller, and the Session closes what it runs on.
//
//	m, sess, err := session.Practice(ctx, session.PracticeConfig{Match: game.Config{Name: "ada"}})
//	if err != nil {
//		return err
//	}
//	defer sess.Close()
//	for m.Err() == nil {
//		_ = m.Step(m.Now(), input())
//	}
//
// Serve reports every step's ServeStatus (players, and the MatchState: waiting,
// playing, idle, ended) to ServeConfig.Tick, and returns when the match ends by its
// rules (ServeConfig.IdleTimeout without players, or ServeConfig.Rounds).
package session
