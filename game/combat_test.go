package game

import (
	"testing"
	"time"

	"github.com/treadline/treadline/bot"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/referee"
	"github.com/treadline/treadline/terrain"
)

// TestBotsDestroyEachOtherAndRespawn runs two peers' bots through a refereed loopback
// until tanks have been destroyed, wrecked and respawned, and checks that every peer
// saw the host's verdicts.
func TestBotsDestroyEachOtherAndRespawn(t *testing.T) {
	if testing.Short() {
		t.Skip("a few simulated minutes of battle")
	}
	t.Parallel()
	mp, ref, rig := refereedValley(t, 3, 0.02)
	a := mustMatch(t, Config{Map: mp, NoPlayer: true, Bots: 3, Seed: 1, Difficulty: bot.Hard}, join(t, rig))
	b := mustMatch(t, Config{Map: mp, NoPlayer: true, Bots: 3, Seed: 2, Difficulty: bot.Hard}, join(t, rig))
	var snap Snapshot
	const dt = 1.0 / 30
	names := map[string]map[uint32]bool{} // bot name → actor ids it has had
	sawWreck, sawShell, sawExplosion := false, false, false
	destroys := 0
	for tick := 1; tick <= 30*240; tick++ {
		now := float64(tick) * dt
		rig.SetNow(now)
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
	counts := ref.Counts().Verdicts
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
	if counts[combat.Accepted] == 0 {
		t.Error("no hit claim accepted")
	}
	// Both peers' scoreboards are the host's.
	a.Snapshot(&snap)
	if len(snap.Combat.Scores) != 6 {
		t.Errorf("peer a's scoreboard has %d lines, want 6", len(snap.Combat.Scores))
	}
}

// refereedValley returns the valley, a referee of its rules with a 3 s wreck, and a
// rig of seed that it judges, over links of 50 ± 10 ms that lose loss of their
// datagrams: the battlefield of the tests that play bots' fights through.
func refereedValley(t *testing.T, seed uint64, loss float64) (*terrain.Map, *referee.Referee, *gametest.Rig) {
	t.Helper()
	mp := testmaps.Valley(t)
	ref, err := referee.New(mp, combat.Rules{WreckTime: 3}, DeadReckoning().Reckon)
	if err != nil {
		t.Fatal(err)
	}
	rig := newRig(t, gametest.Config{Seed: seed, Judge: ref,
		Link: impair.Link{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: loss}})
	return mp, ref, rig
}

// TestHitsJudgedAtFiveFramesASecond: hard bots on a peer that steps five times a
// second, as software GL draws a 512-tank practice, fight bots stepped at 30 Hz. Each
// of the slow peer's frames sweeps a fifth of a second of every shell's flight against
// the hulls as that frame shows them, so an impact may lie up to a frame before the
// claim's time; the referee refuses none of the claims as impossible in time.
func TestHitsJudgedAtFiveFramesASecond(t *testing.T) {
	if testing.Short() {
		t.Skip("three simulated minutes of battle")
	}
	t.Parallel()
	mp, judge, rig := refereedValley(t, 4, 0)
	slow := mustMatch(t, Config{Map: mp, NoPlayer: true, Bots: 8, Team: 1, Seed: 1, Difficulty: bot.Hard}, join(t, rig))
	fast := mustMatch(t, Config{Map: mp, NoPlayer: true, Bots: 8, Team: 2, Seed: 2, Difficulty: bot.Hard}, join(t, rig))
	const dt = 1.0 / 30
	for tick := 1; tick <= 30*180; tick++ {
		now := float64(tick) * dt
		rig.SetNow(now)
		if tick%6 == 0 {
			mustStep(t, slow, now, physics.Input{})
		}
		mustStep(t, fast, now, physics.Input{})
	}
	v := judge.Counts().Verdicts
	t.Logf("verdicts: %v", v)
	if v[combat.RejectImpossible] != 0 {
		t.Errorf("%d claims refused as impossible in time or range (%d accepted)", v[combat.RejectImpossible], v[combat.Accepted])
	}
	if v[combat.Accepted] < 20 {
		t.Errorf("%d claims accepted in three minutes of hard bots' battle, want 20 or more", v[combat.Accepted])
	}
}

// TestMatchEndsAndRestarts: with a score limit of one kill, the first kill ends the
// match on every peer (the scoreboard says so), and when the scoreboard's time is up
// every peer's tanks respawn for the next match with clean scores. On the small map
// the bots meet soon: the first kill comes at 23 s there, at 85 s on the valley, and
// nothing the test asserts depends on the map.
func TestMatchEndsAndRestarts(t *testing.T) {
	t.Parallel()
	mp := testmaps.Small(t)
	ref, err := referee.New(mp, combat.Rules{ScoreLimit: 1, ScoreboardTime: 3, WreckTime: 2}, DeadReckoning().Reckon)
	if err != nil {
		t.Fatal(err)
	}
	rig := newRig(t, gametest.Config{Seed: 4, Judge: ref, Link: impair.Link{Latency: 50 * time.Millisecond}})
	a := mustMatch(t, Config{Map: mp, NoPlayer: true, Bots: 2, Seed: 1, Difficulty: bot.Hard}, join(t, rig))
	b := mustMatch(t, Config{Map: mp, NoPlayer: true, Bots: 2, Seed: 2, Difficulty: bot.Hard}, join(t, rig))
	var snap Snapshot
	const dt = 1.0 / 30
	ids := func() map[uint32]bool {
		a.Snapshot(&snap)
		out := map[uint32]bool{}
		for _, tv := range snap.Tanks {
			if tv.Local {
				out[tv.ID] = true
			}
		}
		return out
	}
	var overAt float64
	var before map[uint32]bool
	restarted := false
	for tick := 1; tick <= 30*600 && !restarted; tick++ {
		now := float64(tick) * dt
		rig.SetNow(now)
		mustStep(t, a, now, physics.Input{})
		mustStep(t, b, now, physics.Input{})
		a.Snapshot(&snap)
		switch {
		case overAt == 0 && snap.Combat.Over:
			overAt, before = now, ids()
			kills := 0
			for _, s := range snap.Combat.Scores {
				kills += s.Kills
			}
			if kills != 1 {
				t.Errorf("the match ended with %d kills on the scoreboard, want 1", kills)
			}
		case overAt > 0 && !snap.Combat.Over:
			restarted = true
			if now-overAt < 3-1e-9 { // (tick sums round)
				t.Errorf("the next match began %.2f s after the end, before the scoreboard's 3 s", now-overAt)
			}
			for _, s := range snap.Combat.Scores {
				if s.Kills != 0 || s.Deaths != 0 {
					t.Errorf("scores not cleared at the restart: %+v", s)
				}
			}
		}
	}
	if overAt == 0 || !restarted {
		t.Fatalf("over at %.1f s, restarted %v", overAt, restarted)
	}
	t.Logf("over at %.1f s, restarted at %.1f s", overAt, rig.Now())
	// The restart respawns every local tank under a new id within a few ticks.
	for tick := 0; tick < 10; tick++ {
		now := rig.Now() + dt
		rig.SetNow(now)
		mustStep(t, a, now, physics.Input{})
		mustStep(t, b, now, physics.Input{})
	}
	for id := range ids() {
		if before[id] {
			t.Errorf("tank %d did not respawn at the restart", id)
		}
	}
}
