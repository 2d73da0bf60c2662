package game

import (
	"testing"
	"time"

	"github.com/treadline/treadline/bot"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/referee"
	tankspec "github.com/treadline/treadline/tank"
)

// TestRespawnThroughAFrozenHost: the player's tank, destroyed among hard bots, comes
// to the end of its wreck time while the host is frozen (net.Host.Pause), or just
// after it runs again. Asked of a frozen host, the respawn goes unanswered (a game's
// Spawn waits for the answer in real time) and is asked again after its back-off; the host
// answers the first request once it runs, and the player removes that tank again.
// Either way, a second after the wreck's time the player's tank is back in the match
// under one new actor id, alive, and the only tank the player owns on the host and on
// the other peer; and the host refuses no update of any tank as one its tank could
// not have sent. A bot's respawn asked of the frozen host goes unanswered too. The
// rig's spawns give up after a second of real time, not a game's 5 s: the test's
// clock stands still while one waits, so the match is the same, and a case takes
// 4–9 s of wall clock rather than 7–27 (an unpaused host answers within
// microseconds: the second is for a loaded machine).
func TestRespawnThroughAFrozenHost(t *testing.T) {
	if testing.Short() {
		t.Skip("a simulated minute of battle, and spawns that wait for a frozen host in real time")
	}
	t.Parallel()
	const dt = 1.0 / 30
	for _, c := range []struct {
		name           string
		pause, resume  float64 // from the wreck's end, s
		unansweredWant bool    // the respawn is asked of the frozen host
	}{
		{"asked while frozen", -1, 0.02, true},
		{"asked right after the host runs again", -2, -0.1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			mp := testmaps.Valley(t)
			judge, err := referee.New(mp, combat.Rules{}, DeadReckoning().Reckon)
			if err != nil {
				t.Fatal(err)
			}
			rig := newRig(t, gametest.Config{Seed: 3, Judge: judge, Mover: referee.NewMover(tankspec.Spec{}, mp.SurfaceAt),
				Link:      impair.Link{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02},
				SpawnWait: time.Second})
			bots := mustMatch(t, Config{Map: mp, NoPlayer: true, Bots: 4, Seed: 1, Difficulty: bot.Hard}, join(t, rig))
			me := mustMatch(t, Config{Map: mp, Name: "me", Team: 3, Seed: 2}, join(t, rig))
			var snap Snapshot
			step := func(now float64) {
				rig.SetNow(now)
				mustStep(t, bots, now, physics.Input{})
				mustStep(t, me, now, physics.Input{})
			}
			now := 0.0
			wrecked := func() bool { tc := me.combat.tanks[me.self.id]; return tc != nil && tc.wreck }
			for !wrecked() {
				if now > 180 {
					t.Fatal("the player survived three minutes among hard bots")
				}
				now += dt
				step(now)
			}
			// The wreck's time, the game's rules and the judge's alike, runs from the
			// destroy's arrival.
			dead, end := me.self.id, me.combat.tanks[me.self.id].wreckAt+me.combat.rules.WreckTime
			for now < end+c.pause {
				now += dt
				step(now)
			}
			rig.Pause()
			frozenAt := now
			for now < end+c.resume {
				now += dt
				step(now)
			}
			unanswered := me.self.spawnFailed
			rig.Resume()
			t.Logf("destroyed as actor %d; frozen %.2f s from %.2f s; wreck's time up at %.2f s; respawn unanswered: %v",
				dead, now-frozenAt, frozenAt, end, unanswered)
			if unanswered != c.unansweredWant {
				t.Fatalf("respawn unanswered by the frozen host: %v, want %v", unanswered, c.unansweredWant)
			}
			for now < end+1 {
				now += dt
				step(now)
			}
			self := me.self
			if self.spawnFailed || self.id == 0 || self.id == dead {
				t.Fatalf("a second after the wreck's time: actor %d (destroyed as %d), spawn failed %v", self.id, dead, self.spawnFailed)
			}
			if tc := me.combat.tanks[self.id]; tc == nil || tc.wreck || tc.health <= 0 {
				t.Errorf("respawned as actor %d, combat state %+v, want alive", self.id, tc)
			}
			bots.Snapshot(&snap)
			var seen []uint32
			for _, tv := range snap.Tanks {
				if tv.Name == "me" {
					seen = append(seen, tv.ID)
				}
			}
			if len(seen) != 1 || seen[0] != self.id {
				t.Errorf("the other peer shows the player's tanks %v, want only %d", seen, self.id)
			}
			st := rig.Host().Stats()
			if want := 1 + bots.cfg.Bots; st.Actors != want {
				t.Errorf("the host holds %d actors, want %d: the abandoned spawn was not removed", st.Actors, want)
			}
			if st.Invalid != 0 || st.Moves != (net.MoveRefusals{}) {
				t.Errorf("the host refused %d updates or spawns as invalid (movement %+v)", st.Invalid, st.Moves)
			}
		})
	}
}
