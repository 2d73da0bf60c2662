package replay_test

import (
	"math"
	"testing"
	"time"

	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/record/recordtest"
	"github.com/treadline/treadline/replay"
)

// TestReplayPatrol: a recording of a match whose bots patrol holds their routes and
// progress as the player's match heard them, and plays back with every tank where
// the player's screen had it, the patrolling ones reckoned along their routes.
func TestReplayPatrol(t *testing.T) {
	live, err := recordtest.Practice(recordtest.Config{Map: testMap, Bots: 6, Patrol: 1, Seconds: 10, Seed: 2,
		Dir: t.TempDir(), Camera: camera, Link: impair.Link{Latency: 100 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.02}})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := replay.Load(live.Path)
	if err != nil {
		t.Fatal(err)
	}
	routes, progress := 0, 0
	for _, it := range rec.Events {
		switch it.Event.Kind {
		case net.EventRoute:
			routes++
		case net.EventProgress:
			progress++
		}
	}
	if routes == 0 || progress == 0 {
		t.Fatalf("the recording holds %d routes and %d progress events", routes, progress)
	}
	p, err := replay.NewPlayer(rec, replay.PlayerConfig{Map: testMap, DeadReckoning: game.DeadReckoning()})
	if err != nil {
		t.Fatal(err)
	}
	p.SetCamera(camera)
	var snap game.Snapshot
	worst, compared := 0.0, 0
	for _, f := range live.Frames {
		for p.Time() < f.Time-1e-6 {
			if err := p.StepFrame(); err != nil {
				t.Fatal(err)
			}
		}
		p.Snapshot(&snap)
		for _, tv := range snap.Tanks {
			if want, ok := f.Shown[tv.ID]; ok {
				compared++
				worst = math.Max(worst, tv.Position.Sub(want).Len())
			}
		}
	}
	t.Logf("%d routes, %d progress events; %d positions compared, worst %.2g m", routes, progress, compared, worst)
	if worst > 0.001 || compared < 1000 {
		t.Errorf("replayed positions differ from the live ones by up to %.6f m over %d comparisons, want ≤ 0.001 m", worst, compared)
	}
}
