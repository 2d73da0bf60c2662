package game

import (
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

// TestHonestBotsNeverRefused plays 64 tanks (eight peers of eight bots) on each shipped
// map for a simulated minute (20 s under the race detector) on the real host,
// refereed, with the host holding every update to what the tank can do on the map's
// ground, and asserts that the movement checks refuse not one honest update: the
// bots' collisions, pivots, stops, hills, ledges and respawns all pass. A round ends
// at 10 kills and its scoreboard shows for 5 s, so the minute holds at least one
// restart, where every tank respawns at once and the host places the spawns it
// cannot take where asked (on valley the first comes within 15 s, on dunes near
// 48 s).
func TestHonestBotsNeverRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("a simulated minute of 64 tanks on each map")
	}
	t.Parallel()
	const peers, bots = 8, 8
	seconds := 60
	if raceEnabled {
		seconds = 20
	}
	for _, name := range []string{"valley", "dunes"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			mp, err := maps.Library{}.Load(name)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := referee.New(mp, combat.Rules{WreckTime: 3, ScoreLimit: 10, ScoreboardTime: 5}, DeadReckoning().Reckon)
			if err != nil {
				t.Fatal(err)
			}
			rig := newRig(t, gametest.Config{Seed: 5, Judge: ref, Mover: referee.NewMover(tankspec.Spec{}, mp.SurfaceAt),
				Link: impair.Link{Latency: 40 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02}})
			var ms []*Match
			for i := range peers {
				ms = append(ms, mustMatch(t, Config{Map: mp, NoPlayer: true, Bots: bots, Seed: uint64(i + 1)}, join(t, rig)))
			}
			for i := 1; i <= seconds*60; i++ {
				now := float64(i) * tick
				rig.SetNow(now)
				for _, m := range ms {
					mustStep(t, m, now, physics.Input{})
				}
			}
			st := rig.Host().Stats()
			t.Logf("%s: %d updates accepted, %d invalid (movement %+v), %d superseded by a placed respawn, %d actors, %d rounds ended; verdicts %v",
				name, st.Accepted, st.Invalid, st.Moves, st.Superseded, st.Actors, ref.Rounds(), ref.Counts().Verdicts)
			// A respawn the host placed elsewhere is followed by updates the owner
			// sends from where it asked before it learns the place: dropped as
			// superseded, never refused as invalid.
			if st.Invalid != 0 || st.Moves != (net.MoveRefusals{}) {
				t.Errorf("honest updates refused: %d invalid, movement %+v", st.Invalid, st.Moves)
			}
			if st.Accepted < uint64(seconds*peers*bots) {
				t.Errorf("only %d updates accepted: the bots hardly drove", st.Accepted)
			}
			if !raceEnabled && (ref.Rounds() == 0 || st.Superseded == 0) {
				t.Errorf("%d rounds ended, %d updates superseded by a placed respawn: the minute held no restart with spawns the host placed",
					ref.Rounds(), st.Superseded)
			}
		})
	}
}

// The host accepts accelerations up to the tank's (tank.Spec.Acceleration): the
// game's publisher must not publish harder ones.
func TestPublishedAccelerationWithinTheSpec(t *testing.T) {
	if c, a := DeadReckoning().AccelerationCap, tankspec.Default().Acceleration; c > a {
		t.Errorf("the publisher caps accelerations at %g m/s², above the tank's %g m/s² the host accepts", c, a)
	}
}
