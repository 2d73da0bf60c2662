package game

import (
	"fmt"
	"testing"
	"time"

	"github.com/treadline/treadline/assets/maps"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/referee"
	tankspec "github.com/treadline/treadline/tank"
)

// TestCrowdRestartNeverRefused plays a full match, 511 bots (eight peers of 64, one
// of 63) on valley, on the real host, refereed and holding every update to what the
// tank can do, through a round's end and restart, where every tank respawns at once
// and the host places the ones it does not take where asked: far more than valley's
// spawn area holds. It asserts that the movement checks refuse not one honest update.
// The host once put 56 tanks on one pad, and each peer's physics pushed its tanks
// apart in jumps the host refused (122 refusals in 32 s, all at restarts). A round
// ends at the first kill, so the restart comes near 2 s and the match plays a second
// past it (at most 6 s): every second holds the spawn of the whole crowd or its
// restart, where those refusals came; a longer round would add only more of the
// fight between them, at 6 s of a processor a simulated second. Every placed respawn
// moves to the host's place before its first update, so the host supersedes none of
// their updates.
func TestCrowdRestartNeverRefused(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("511 tanks through a restart: 20 s of a processor without the race detector")
	}
	const peers, seconds = 8, 6
	mp, err := maps.Library{}.Load("valley")
	if err != nil {
		t.Fatal(err)
	}
	// A round ends at the first kill (near 1 s with 511 tanks) and restarts a second
	// later.
	ref, err := referee.New(mp, combat.Rules{WreckTime: 3, ScoreLimit: 1, ScoreboardTime: 1}, DeadReckoning().Reckon)
	if err != nil {
		t.Fatal(err)
	}
	rig := newRig(t, gametest.Config{Seed: 5, Judge: ref, Mover: referee.NewMover(tankspec.Spec{}, mp.SurfaceAt),
		// A peer joined in process runs 64 bots: its update and control budgets are
		// those of a player with 64 tanks.
		Limits: net.Limits{MaxActorsPerPlayer: 64, ControlBurst: 2 * (MaxBots + 1)},
		Link:   impair.Link{Latency: 40 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02}})
	var ms []*Match
	for i := range peers {
		bots := (MaxBots + 1) / peers
		if i == 0 {
			bots--
		}
		ms = append(ms, mustMatch(t, Config{Map: mp, NoPlayer: true, Bots: bots, Seed: uint64(i + 1)}, join(t, rig)))
	}
	// The simulation starts here, in the package's sequential phase (see
	// game/main_test.go): it runs beside TestOverQUIC, which mostly sleeps, and the
	// test waits for it once the parallel phase has started.
	done := make(chan crowdRun, 1)
	go func() { done <- playCrowd(rig, ref, ms, seconds) }()
	t.Parallel()
	run := <-done
	if run.err != nil {
		t.Fatal(run.err)
	}
	restartAt, placedBefore, now := run.restartAt, run.placedBefore, run.now
	st := rig.Host().Stats()
	placed := placedSpawns(ms) - placedBefore
	t.Logf("%d updates accepted, %d invalid (movement %+v), %d spawns placed by the host after the round's end, %d updates superseded, %d actors, %d rounds ended, restart near %.2f s, played to %.2f s",
		st.Accepted, st.Invalid, st.Moves, placed, st.Superseded, st.Actors, ref.Rounds(), restartAt, now)
	if st.Invalid != 0 || st.Moves != (net.MoveRefusals{}) {
		t.Errorf("honest updates refused: %d invalid, movement %+v", st.Invalid, st.Moves)
	}
	if st.Actors != MaxBots {
		t.Errorf("%d actors, want %d", st.Actors, MaxBots)
	}
	if placed == 0 {
		t.Errorf("no spawn placed by the host after the round's end: the restart put every tank where it asked")
	}
	if st.Superseded != 0 {
		t.Errorf("%d updates superseded: a tank published from where it asked after the host had placed it", st.Superseded)
	}
	if restartAt == 0 || now < restartAt+1 {
		t.Errorf("round ended for a restart at %.2f s: the test ran no restart and a second after it", restartAt)
	}
}

// crowdRun is what playCrowd saw: when the restart came (s of the clock, zero if
// none), how many spawns the host had placed elsewhere than asked before it, and the
// clock's last time, s.
type crowdRun struct {
	restartAt, now float64
	placedBefore   uint64
	err            error
}

// playCrowd steps the matches ms of TestCrowdRestartNeverRefused together on rig's
// clock, refereed by ref, to a second past the restart and at most the given seconds.
// It runs on a goroutine of its own, so it returns the first step's error rather than
// failing the test.
func playCrowd(rig *gametest.Rig, ref *referee.Referee, ms []*Match, seconds int) (r crowdRun) {
	for i := 1; (r.restartAt == 0 || r.now < r.restartAt+1) && i <= seconds*60; i++ {
		r.now = float64(i) * tick
		rig.SetNow(r.now)
		for _, m := range ms {
			if err := m.Step(r.now, physics.Input{}); err != nil {
				r.err = fmt.Errorf("step at %.3f s: %w", r.now, err)
				return r
			}
		}
		if r.restartAt == 0 && ref.Rounds() > 0 {
			r.restartAt, r.placedBefore = r.now+1, placedSpawns(ms)
		}
	}
	return r
}

// placedSpawns returns how many spawns of the tanks of ms the host put elsewhere than
// they asked, and their matches moved there.
func placedSpawns(ms []*Match) (n uint64) {
	for _, m := range ms {
		n += m.counters.placed
	}
	return n
}
