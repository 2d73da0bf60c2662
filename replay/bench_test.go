package replay_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/cputime"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/record/recordtest"
	"github.com/treadline/treadline/replay"
	"github.com/treadline/treadline/terrain"
)

// BenchmarkKillCamStep measures one frame of a live match's kill camera at 5 frames a
// second (a fifth of a second of a practice kept in memory, replayed as the kill
// camera replays it: the Delayed reckoning), with every view field filled
// ("detail=all") and with the fields the overlays read left out (",overlays=off", as
// the client asks with no overlay on); ",view" also tells the replay the kill
// camera's narrow view at every frame, as the client does, so that only the tanks in
// its picture and near its camera are reckoned in full. "tanks=32" replays a 32-tank
// practice on the test map, "tanks=512" one of 512 tanks on expanse (its recording
// takes about ten seconds to make). cpu-ms/frame is the thread's CPU time, as the
// client's own CPU counts the main thread's; low is how many tanks the last frame
// reckoned in low mode.
func BenchmarkKillCamStep(b *testing.B) {
	off := game.ViewDetail{NoProjection: true, NoTrails: true}
	// Each recording is made when the first case that replays it runs.
	var small, crowd *replay.Recording
	var expanse *terrain.Map
	smallRec := func(b *testing.B) (*replay.Recording, *terrain.Map) {
		if small == nil {
			small = killCamRecording(b, testMap, 31, impair.Link{Latency: 100 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.02})
		}
		return small, testMap
	}
	crowdRec := func(b *testing.B) (*replay.Recording, *terrain.Map) {
		if crowd == nil {
			mp, err := terrain.Load("../assets/maps/expanse.json")
			if err != nil {
				b.Fatal(err)
			}
			crowd, expanse = killCamRecording(b, mp, game.MaxBots, impair.Link{}), mp
		}
		return crowd, expanse
	}
	for _, c := range []struct {
		name string
		rec  func(*testing.B) (*replay.Recording, *terrain.Map)
		d    game.ViewDetail
		view bool
	}{
		{"tanks=32,detail=all", smallRec, game.ViewDetail{}, false},
		{"tanks=32,overlays=off", smallRec, off, false},
		{"tanks=32,overlays=off,view", smallRec, off, true},
		{"tanks=512,overlays=off", crowdRec, off, false},
		{"tanks=512,overlays=off,view", crowdRec, off, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			rec, mp := c.rec(b)
			benchKillCam(b, rec, mp, c.d, c.view)
		})
	}
}

// killCamRecording records a practice of bots bots and the player on mp and returns
// the seconds its ring kept, as a live kill camera reads them.
func killCamRecording(b *testing.B, mp *terrain.Map, bots int, link impair.Link) *replay.Recording {
	b.Helper()
	live, err := recordtest.Practice(recordtest.Config{Map: mp, Bots: bots, Seconds: 12, Seed: 5, Dir: b.TempDir(),
		Camera: camera, Ring: 10 * time.Second, Link: link})
	if err != nil {
		b.Fatal(err)
	}
	rec, err := replay.ReadRing(live.Ring)
	if err != nil {
		b.Fatal(err)
	}
	return rec
}

// benchKillCam times BenchmarkKillCamStep's frames of rec on mp, the views filled as
// d says, the kill camera's view told to the replay at every frame when view.
func benchKillCam(b *testing.B, rec *replay.Recording, mp *terrain.Map, d game.ViewDetail, view bool) {
	p, err := replay.NewPlayer(rec, replay.PlayerConfig{Map: mp})
	if err != nil {
		b.Fatal(err)
	}
	p.SetViewDetail(d)
	from := rec.Start + 2
	if err := p.Seek(from); err != nil {
		b.Fatal(err)
	}
	var snap game.Snapshot
	p.Snapshot(&snap)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var cpu time.Duration
	b.ReportAllocs()
	for b.Loop() {
		if p.Time() > rec.End-0.5 {
			b.StopTimer()
			if err := p.Seek(from); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		if view && len(snap.Tanks) > 1 {
			// The kill camera's narrow view, over one tank and on another, as
			// the client tells it each frame.
			eye := snap.Tanks[0].Position.Add(mgl64.Vec3{0, 4, 0})
			p.SetCameraView(eye, snap.Tanks[1].Position.Sub(eye), 0.2)
		}
		c0, _ := cputime.Thread()
		if err := p.Advance(0.2); err != nil {
			b.Fatal(err)
		}
		p.Snapshot(&snap)
		c1, _ := cputime.Thread()
		cpu += c1 - c0
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/1e6, "cpu-ms/frame")
	b.ReportMetric(float64(len(snap.Tanks)), "tanks")
	b.ReportMetric(float64(snap.Modes[deadreckon.ModeLow]), "low")
}
