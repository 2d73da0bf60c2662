package game

import (
	"testing"
	"time"

	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/physics"
)

// TestBotsDestroyEachOtherAndRespawn runs two peers' bots through a refereed loopback
// until tanks have been destroyed, wrecked and respawned, and checks that every peer
// saw the host's verdicts.
func TestBotsDestroyEachOtherAndRespawn(t *testing.T) {
	if testing.Short() {
		t.Skip("a few simulated minutes of battle")
	}
	mp := valley(t)
	judge, err := NewJudge(mp, Rules{WreckTime: 3}, RemoteReckon(Config{}))
	if err != nil {
		t.Fatal(err)
	}
	ref := judge.Referee()
	hub := newHub(t, gametest.LoopbackConfig{Seed: 3, Judge: judge,
		Link: impair.Link{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02}})
	a := mustMatch(t, Config{Map: mp, NoPlayer: true, Bots: 3, Seed: 1, Difficulty: Hard}, hub.Join())
	b := mustMatch(t, Config{Map: mp, NoPlayer: true, Bots: 3, Seed: 2, Difficulty: Hard}, hub.Join())
	var snap Snapshot
	const dt = 1.0 / 30
	names := map[string]map[uint32]bool{} // bot name → actor ids it has had
	sawWreck, sawShell, sawExplosion := false, false, false
	destroys := 0
	for tick := 1; tick <= 30*240; tick++ {
		now := float64(tick) * dt
		hub.SetNow(now)
		mustStep(t, a, now, physics.Input{})
		mustStep(t, b, now, physics.Input{})
		b.Snapshot(&snap)
		for _, tv := range snap.Tanks {
			if !tv.Local {
				continue
			}
			if names[tv.Name] == nil {
				names[tv.Name] = map[uint32]bool{}
			}
			names[tv.Name][tv.ID] = true
			sawWreck = sawWreck || tv.Wreck
		}
		sawShell = sawShell || len(snap.Combat.Shells) > 0
		for _, e := range snap.Combat.Effects {
			sawExplosion = sawExplosion || e.Kind == EffectExplosion
		}
		destroys = 0
		for _, s := range ref.Scores(nil) {
			destroys += s.Deaths
		}
		respawned := 0
		for _, ids := range names {
			if len(ids) > 1 {
				respawned++
			}
		}
		if destroys >= 3 && respawned >= 1 && sawWreck && sawExplosion {
			break
		}
	}
	counts := ref.Checker().Counts()
	t.Logf("destroys %d; verdicts %v; scores %+v", destroys, counts, ref.Scores(nil))
	if destroys < 3 {
		t.Fatalf("only %d tanks destroyed in four minutes of battle", destroys)
	}
	if !sawShell || !sawExplosion || !sawWreck {
		t.Errorf("peer b saw shells %v, an explosion %v, a wreck of its own %v", sawShell, sawExplosion, sawWreck)
	}
	respawned := 0
	for _, ids := range names {
		if len(ids) > 1 {
			respawned++
		}
	}
	if respawned == 0 {
		t.Error("no bot of peer b respawned under a new actor id")
	}
	kills := 0
	for _, s := range ref.Scores(nil) {
		kills += s.Kills
	}
	if kills == 0 || kills > destroys {
		t.Errorf("%d kills for %d destroys", kills, destroys)
	}
	if counts[Accepted] == 0 {
		t.Error("no hit claim accepted")
	}
	// Both peers' scoreboards are the host's.
	a.Snapshot(&snap)
	if len(snap.Combat.Scores) != 6 {
		t.Errorf("peer a's scoreboard has %d lines, want 6", len(snap.Combat.Scores))
	}
}
