package game

import (
	"testing"

	"github.com/treadline/treadline/bot"
	"github.com/treadline/treadline/physics"
)

// TestPlayerSeesWhoHitAndKilledThem stands the player among hard bots until they
// destroy the player's tank: each hit on it is reported with the shooter's name and
// where the shooter was, and while the wreck waits the snapshot names the killer,
// who is one of the tanks on the field.
func TestPlayerSeesWhoHitAndKilledThem(t *testing.T) {
	if testing.Short() {
		t.Skip("a simulated minute of battle")
	}
	t.Parallel()
	mp, _, rig := refereedValley(t, 3, 0.02)
	bots := mustMatch(t, Config{Map: mp, NoPlayer: true, Bots: 4, Seed: 1, Difficulty: bot.Hard}, join(t, rig))
	me := mustMatch(t, Config{Map: mp, Name: "me", Team: 3, Seed: 2}, join(t, rig))
	var snap Snapshot
	const dt = 1.0 / 30
	hurts := 0
	for tick := 1; tick <= 30*180; tick++ {
		now := float64(tick) * dt
		rig.SetNow(now)
		mustStep(t, bots, now, physics.Input{})
		mustStep(t, me, now, physics.Input{})
		me.Snapshot(&snap)
		cv := &snap.Combat
		for _, h := range cv.Hurts {
			if h.Age == 0 {
				hurts++
				if h.Name == "" || h.Name == "me" || h.Shooter == 0 || !h.HasFrom || h.Damage <= 0 {
					t.Errorf("hit on the player: %+v, want the shooter's name, place and the damage", h)
				}
			}
		}
		if !cv.Wreck {
			if cv.KilledBy != "" || cv.Killer != 0 {
				t.Fatalf("alive, yet killed by %q (%d)", cv.KilledBy, cv.Killer)
			}
			continue
		}
		if cv.KilledBy == "" || cv.KilledBy == "?" || cv.Killer == 0 {
			t.Fatalf("wreck: killed by %q (%d), want a name", cv.KilledBy, cv.Killer)
		}
		found := false
		for _, tv := range snap.Tanks {
			found = found || (tv.ID == cv.Killer && tv.Name == cv.KilledBy)
		}
		if !found {
			t.Errorf("killer %q (%d) is not among the tanks shown", cv.KilledBy, cv.Killer)
		}
		if hurts == 0 {
			t.Error("destroyed without a hit reported")
		}
		return
	}
	t.Fatalf("the player survived three minutes among hard bots (%d hits)", hurts)
}
