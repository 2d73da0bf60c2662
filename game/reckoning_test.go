package game

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/physics"
)

// TestOneDeadReckoning: a match configured with nothing runs game.DeadReckoning(), the
// value cmd/tanks passes and drlab's "game" algorithm runs (their tests check the same
// value), and local tanks publish with it, reckoning their own updates as remotes do:
// kept out of the map's rocks and border.
func TestOneDeadReckoning(t *testing.T) {
	rig := newRig(t, gametest.Config{})
	mp := testmaps.Small(t)
	m := mustMatch(t, Config{Map: mp, NoPlayer: true, Bots: 1}, join(t, rig))
	if m.DeadReckoning() != DeadReckoning() {
		t.Errorf("match reckons with %+v\nwant the game's %+v", m.DeadReckoning(), DeadReckoning())
	}
	want := DeadReckoning()
	want.Reckon.Collide = physics.Collide(mp)
	walls := want.Reckon.Collide.Obstacles.(*deadreckon.Walls)
	bots := 0
	for _, tk := range m.tanks {
		if !tk.local {
			continue
		}
		bots++
		got := tk.pub.Config()
		w, ok := got.Reckon.Collide.Obstacles.(*deadreckon.Walls)
		if !ok || len(w.Rocks) != len(walls.Rocks) || w.Min != walls.Min || w.Max != walls.Max {
			t.Errorf("bot publishes with obstacles %+v, want the map's %+v", got.Reckon.Collide.Obstacles, walls)
			continue
		}
		got.Reckon.Collide.Obstacles = want.Reckon.Collide.Obstacles
		if got != deadreckon.NewPublisher(want, 0).Config() {
			t.Errorf("bot publishes with %+v", got)
		}
	}
	if bots != 1 {
		t.Errorf("%d local tanks, want the bot", bots)
	}
}

// TestDeadReckoningMergesFieldByField: a configuration that sets some fields keeps
// them and takes the game's value for every other, nested fields included.
func TestDeadReckoningMergesFieldByField(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(pc *deadreckon.PublisherConfig)
	}{
		{"publisher threshold", func(pc *deadreckon.PublisherConfig) { pc.PositionThreshold = 0.5 }},
		{"reckon interval", func(pc *deadreckon.PublisherConfig) { pc.Reckon.UpdateInterval = 0.3 }},
		{"clamp distance", func(pc *deadreckon.PublisherConfig) { pc.Reckon.Clamp.NearDistance = 12 }},
		{"limit", func(pc *deadreckon.PublisherConfig) { pc.Reckon.Limits.MaxSpeed = 9 }},
	} {
		var given deadreckon.PublisherConfig
		c.edit(&given)
		want := DeadReckoning()
		c.edit(&want)
		rig := newRig(t, gametest.Config{})
		m := mustMatch(t, Config{Map: testmaps.Small(t), NoPlayer: true, DeadReckoning: given}, join(t, rig))
		if got := m.DeadReckoning(); got != want {
			t.Errorf("%s: match reckons with %+v\nwant %+v", c.name, got, want)
		}
	}
}

// TestInvalidRulesRefused: rules the referee would refuse are an error, not the defaults.
func TestInvalidRulesRefused(t *testing.T) {
	rig := newRig(t, gametest.Config{})
	for _, r := range []combat.Rules{{Reload: -1}, {MaxHealth: math.NaN()}, {TimeLimit: math.Inf(1)}} {
		if _, err := NewMatch(Config{Map: testmaps.Small(t), NoPlayer: true, Rules: r}, join(t, rig)); err == nil {
			t.Errorf("rules %+v accepted", r)
		}
	}
}

// TestStaleBeforeRemoved: a silent tank is shown stale before the host's timeout
// removes its player, and the match's own removal comes later still.
func TestStaleBeforeRemoved(t *testing.T) {
	stale := DeadReckoning().Reckon.StaleAfter()
	if host := net.DefaultTimeout.Seconds(); !(stale < host && host < DefaultRemoveAfter) {
		t.Fatalf("stale after %v s, host timeout %v s, match removal %v s: want them in this order",
			stale, net.DefaultTimeout, DefaultRemoveAfter)
	}
	// A parked tank is heard from every heartbeat: three lost in a row (one parked
	// tank-hour in a hundred at 10% loss) still leave it fresh.
	if hb := DeadReckoning().Heartbeat * (1 + deadreckon.DefaultHeartbeatJitter); hb*4 > stale {
		t.Errorf("heartbeat up to %v s: three lost heartbeats would mark a parked tank stale (%v s)", hb, stale)
	}
	rig := newRig(t, gametest.Config{})
	owner := join(t, rig)
	m := mustMatch(t, Config{Map: testmaps.Small(t), NoPlayer: true}, join(t, rig))
	id, _ := owner.Spawn("parked", 1, deadreckon.NewState(mgl64.Vec3{5, 0, 5}))
	var snap Snapshot
	var staleAt float64
	for now := tick; now < 8; now += tick {
		rig.SetNow(now)
		if now > 6 && len(snap.Departures) == 0 { // the host's timeout: a despawn
			_ = owner.Despawn(id)
		}
		mustStep(t, m, now, physics.Input{})
		m.Snapshot(&snap)
		if len(snap.Tanks) == 1 && snap.Tanks[0].Stale && staleAt == 0 {
			staleAt = now
		}
	}
	if snap.StaleAfter != stale || snap.Heartbeat != PublishHeartbeat {
		t.Errorf("snapshot says stale after %v s, heartbeat %v s; want %v and %v for the labels", snap.StaleAfter, snap.Heartbeat, stale, PublishHeartbeat)
	}
	if math.Abs(staleAt-stale) > 2*tick {
		t.Errorf("silent tank shown stale at %.2f s, want %.2f s", staleAt, stale)
	}
	if len(snap.Tanks) != 0 || len(snap.Departures) != 1 || !snap.Departures[0].Stale || snap.Departures[0].Name != "parked" {
		t.Errorf("after the despawn: %d tanks, departures %+v; want it gone, announced, stale when it left", len(snap.Tanks), snap.Departures)
	}
}

// TestCameraChoosesClampDetail: the clamp's level of detail follows the camera, not
// the player's tank: a remote tank right under the camera gets three rays.
func TestCameraChoosesClampDetail(t *testing.T) {
	rig := newRig(t, gametest.Config{})
	owner := join(t, rig)
	m := mustMatch(t, Config{Map: testmaps.Small(t)}, join(t, rig))
	self := m.self.body.Pose().Position
	far := mgl64.Vec3{self[0] + 150, 0, self[2]}
	far[0] = math.Max(m.terr.Min()[0]+5, math.Min(m.terr.Max()[0]-5, far[0]))
	if far.Sub(self).Len() < deadreckon.DefaultNearDistance {
		far[0] = self[0] - 150
	}
	id, _ := owner.Spawn("far", 1, deadreckon.NewState(far))
	var snap Snapshot
	rays := func(now float64) int {
		rig.SetNow(now)
		mustStep(t, m, now, physics.Input{})
		m.Snapshot(&snap)
		return viewOf(t, &snap, id).NumClampHits
	}
	if n := rays(tick); n == 3 {
		t.Fatalf("a tank %.0f m from the player clamped with 3 rays before the camera moved", far.Sub(self).Len())
	}
	m.SetCamera(far.Add(mgl64.Vec3{0, 10, 8}))
	if n := rays(2 * tick); n != 3 {
		t.Errorf("a tank under the camera clamped with %d rays, want 3", n)
	}
}
