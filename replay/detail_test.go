package replay_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/replay"
)

// TestViewDetailKillCam: a kill camera that seeks to its lead without the views'
// costlier fields (SetViewDetail) and asks for them all before its first step shown
// shows, frame for frame, what one that filled them all along shows; while they are
// off, the remote tanks' projections are zero and the trails empty, also after a
// seek back rebuilds the match.
func TestViewDetailKillCam(t *testing.T) {
	rec, err := replay.ReadRing(deathMatch(t).Ring)
	if err != nil {
		t.Fatal(err)
	}
	// As a live match's kill camera plays it: the Delayed reckoning, no camera.
	player := func() *replay.Player {
		p, err := replay.NewPlayer(rec, replay.PlayerConfig{Map: testMap})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	full, cut := player(), player()
	k, ok := full.LastDeath()
	if !ok {
		t.Fatal("no death in the kept seconds")
	}
	off := game.ViewDetail{NoProjection: true, NoTrails: true}
	cut.SetViewDetail(off)
	if err := full.KillCamFor(k, 2); err != nil {
		t.Fatal(err)
	}
	if err := cut.KillCamFor(k, 2); err != nil {
		t.Fatal(err)
	}
	var a, b game.Snapshot
	cut.Snapshot(&b)
	assertCut(t, &b)
	cut.SetViewDetail(game.ViewDetail{})
	compared := 0
	for full.Time() < k.Time+replay.KillCamTail {
		if err := full.StepFrame(); err != nil {
			t.Fatal(err)
		}
		if err := cut.StepFrame(); err != nil {
			t.Fatal(err)
		}
		full.Snapshot(&a)
		cut.Snapshot(&b)
		if len(a.Tanks) != len(b.Tanks) {
			t.Fatalf("at %v: %d tanks, %d with the detail cut while seeking", full.Time(), len(a.Tanks), len(b.Tanks))
		}
		for i := range a.Tanks {
			ta, tb := a.Tanks[i], b.Tanks[i]
			if !slices.Equal(ta.Trail, tb.Trail) {
				t.Fatalf("at %v, tank %d: trails differ", full.Time(), ta.ID)
			}
			ta.Trail, tb.Trail = nil, nil
			if !reflect.DeepEqual(ta, tb) {
				t.Fatalf("at %v, tank %d: %+v, with the detail cut while seeking %+v", full.Time(), ta.ID, ta, tb)
			}
			compared++
		}
	}
	if compared == 0 {
		t.Fatal("no tank compared")
	}
	// A seek back rebuilds the match: the detail holds in the new one.
	cut.SetViewDetail(off)
	if err := cut.Seek(rec.Start + 1); err != nil {
		t.Fatal(err)
	}
	cut.Snapshot(&b)
	assertCut(t, &b)
}

// assertCut fails unless snap holds no last-known states, every remote tank no
// error and every tank no trail, and at least one is remote.
func assertCut(t *testing.T, snap *game.Snapshot) {
	t.Helper()
	if len(snap.Known) != 0 {
		t.Errorf("%d last-known states without the projection", len(snap.Known))
	}
	remote := 0
	for _, tv := range snap.Tanks {
		if len(tv.Trail) != 0 {
			t.Errorf("tank %d: a trail of %d points without the trails", tv.ID, len(tv.Trail))
		}
		if tv.Local {
			continue
		}
		remote++
		if tv.Error != 0 {
			t.Errorf("tank %d: error %v without the projection", tv.ID, tv.Error)
		}
	}
	if remote == 0 {
		t.Error("no remote tank")
	}
}
