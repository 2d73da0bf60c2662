package replay_test

import (
	"github.com/go-gl/mathgl/mgl64"
	"runtime"
	"testing"
	"time"

	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/cputime"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/record/recordtest"
	"github.com/treadline/treadline/replay"
)

// BenchmarkKillCamStep measures one frame of a live match's kill camera at 5 frames a
// second (a fifth of a second of a 32-tank practice kept in memory, replayed as the
// kill camera replays it: the Delayed reckoning, no camera), with every view field
// filled ("detail=all") and with the fields the overlays read left out
// (",overlays=off", as the client asks with no overlay on); ",view" also tells the
// replay the kill camera's narrow view at every frame, as the client does, so that
// only the tanks in its picture and near its camera are reckoned in full.
// cpu-ms/frame is the thread's CPU time, as the client's own CPU counts the main
// thread's.
func BenchmarkKillCamStep(b *testing.B) {
	live, err := recordtest.Practice(recordtest.Config{Map: testMap, Bots: 31, Seconds: 12, Seed: 5, Dir: b.TempDir(),
		Camera: camera, Ring: 10 * time.Second,
		Link: impair.Link{Latency: 100 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.02}})
	if err != nil {
		b.Fatal(err)
	}
	rec, err := replay.ReadRing(live.Ring)
	if err != nil {
		b.Fatal(err)
	}
	off := game.ViewDetail{NoProjection: true, NoTrails: true}
	for _, c := range []struct {
		name string
		d    game.ViewDetail
		view bool
	}{{"tanks=32,detail=all", game.ViewDetail{}, false}, {"tanks=32,overlays=off", off, false}, {"tanks=32,overlays=off,view", off, true}} {
		b.Run(c.name, func(b *testing.B) {
			p, err := replay.NewPlayer(rec, replay.PlayerConfig{Map: testMap})
			if err != nil {
				b.Fatal(err)
			}
			p.SetViewDetail(c.d)
			from := rec.Start + 2
			if err := p.Seek(from); err != nil {
				b.Fatal(err)
			}
			var snap game.Snapshot
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
				if c.view && len(snap.Tanks) > 1 {
					// The kill camera's narrow view, over one tank and on
					// another, as the client tells it each frame.
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
		})
	}
}
