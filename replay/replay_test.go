package replay_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/record"
	"github.com/treadline/treadline/record/recordtest"
	"github.com/treadline/treadline/replay"
	"github.com/treadline/treadline/terrain"
)

// The shared recording: a practice match of five bots, 30 s, over a bad link.
var (
	testMap  *terrain.Map
	testLive *recordtest.Live
)

// camera is where the player's camera stood.
var camera = mgl64.Vec3{0, 40, 0}

func TestMain(m *testing.M) {
	os.Exit(func() int {
		dir, err := os.MkdirTemp("", "replay-test")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		testMap, err = terrain.Generate(terrain.GenerateConfig{Seed: 7, Size: 256, Samples: 129})
		if err == nil {
			testLive, err = recordtest.Practice(recordtest.Config{Map: testMap, Bots: 5, Seconds: 30, Seed: 1, Dir: dir,
				Camera: camera, Link: impair.Link{Latency: 100 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.02}})
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return m.Run()
	}())
}

func load(t *testing.T) *replay.Recording {
	t.Helper()
	rec, err := replay.Load(testLive.Path)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Stopped != nil {
		t.Fatalf("the recording stopped early: %v", rec.Stopped)
	}
	return rec
}

// TestRecordingHoldsWhatWasLive checks that the recording holds every update the
// player's match handled and every true pose, as they were.
func TestRecordingHoldsWhatWasLive(t *testing.T) {
	rec := load(t)
	for id, live := range testLive.Received {
		got := rec.Tanks[id].Received
		if len(got) != len(live) {
			t.Errorf("tank %d: %d updates recorded, %d handled", id, len(got), len(live))
			continue
		}
		for i := range live {
			a, b := got[i].State, live[i]
			if d := a.Position.Sub(b.Position).Len(); d > 1e-9 || math.Abs(a.Time-b.Time) > 1e-9 ||
				a.Velocity != b.Velocity || geom.QuatAngle(a.Orientation, b.Orientation) > 1e-6 {
				t.Fatalf("tank %d update %d: recorded %+v, handled %+v", id, i, a, b)
			}
		}
	}
	for id, live := range testLive.Truth {
		got := rec.Tanks[id].Truth
		if len(got) != len(live) {
			t.Errorf("tank %d: %d true poses recorded, %d sampled", id, len(got), len(live))
			continue
		}
		for i := range live {
			if d := got[i].Position.Sub(live[i].Position).Len(); d > 0.001 || math.Abs(got[i].Time-live[i].Time) > 1e-6 {
				t.Fatalf("tank %d pose %d: recorded %v at %v, sampled %v at %v", id, i,
					got[i].Position, got[i].Time, live[i].Position, live[i].Time)
			}
		}
	}
	if len(testLive.Truth) < 6 {
		t.Errorf("truth for %d tanks, want the player's and five bots'", len(testLive.Truth))
	}
}

// liveReplay is a player reckoning as the live match did.
func liveReplay(t *testing.T, rec *replay.Recording, algo deadreckon.Algorithm) *replay.Player {
	t.Helper()
	dr := game.DeadReckoning()
	dr.Reckon.Algorithm = algo
	p, err := replay.NewPlayer(rec, replay.PlayerConfig{Map: testMap, DeadReckoning: dr})
	if err != nil {
		t.Fatal(err)
	}
	p.SetCamera(camera)
	return p
}

// TestReplayShowsWhatTheMatchShowed plays the recording back tick by tick with the
// live match's dead reckoning: every tank is where the player's screen had it.
func TestReplayShowsWhatTheMatchShowed(t *testing.T) {
	rec := load(t)
	p := liveReplay(t, rec, game.DeadReckoning().Reckon.Algorithm)
	var snap game.Snapshot
	worst, compared := 0.0, 0
	for _, f := range testLive.Frames {
		for p.Time() < f.Time-1e-6 { // recorded times are whole microseconds
			if err := p.StepFrame(); err != nil {
				t.Fatal(err)
			}
		}
		if math.Abs(p.Time()-f.Time) > 1e-5 {
			t.Fatalf("replay at %v, live frame at %v", p.Time(), f.Time)
		}
		p.Snapshot(&snap)
		for _, tv := range snap.Tanks {
			want, ok := f.Shown[tv.ID]
			if !ok {
				continue
			}
			compared++
			worst = math.Max(worst, tv.Position.Sub(want).Len())
		}
	}
	// Recorded times are whole microseconds: a tank at 20 m/s moves 10 µm in half of one.
	const tol = 0.001
	if worst > tol || compared < 1000 {
		t.Errorf("replayed positions differ from the live ones by up to %.6f m over %d comparisons, want ≤ %v", worst, compared, tol)
	}
	t.Logf("%d positions compared, worst %.2g m", compared, worst)
}

// meanTruthError replays rec with p from start to the end and returns the mean
// distance between each tank with truth and its true pose.
func meanTruthError(t *testing.T, p *replay.Player, from float64) float64 {
	t.Helper()
	var snap game.Snapshot
	sum, n := 0.0, 0
	if err := p.Seek(from); err != nil {
		t.Fatal(err)
	}
	for p.Time() < p.Recording().End-0.5 {
		if err := p.StepFrame(); err != nil {
			t.Fatal(err)
		}
		p.Snapshot(&snap)
		for _, g := range snap.Ghosts {
			if g.Kind == game.GhostTruth {
				sum += g.Error
				n++
			}
		}
	}
	if n < 1000 {
		t.Fatalf("only %d truth comparisons", n)
	}
	return sum / float64(n)
}

// TestReReckoning re-reckons the recorded stream: static, which shows each update
// where it was sent, lags the truth further than projective velocity blending; the
// replay's default, delayed reckoning handed the future, follows it closest.
func TestReReckoning(t *testing.T) {
	rec := load(t)
	static := meanTruthError(t, liveReplay(t, rec, deadreckon.Static), 5)
	pvb := meanTruthError(t, liveReplay(t, rec, deadreckon.ProjectiveVelocityBlend), 5)
	def, err := replay.NewPlayer(rec, replay.PlayerConfig{Map: testMap})
	if err != nil {
		t.Fatal(err)
	}
	if def.Algorithm() != deadreckon.Delayed {
		t.Fatalf("default algorithm %v, want delayed", def.Algorithm())
	}
	def.SetCamera(camera)
	delayed := meanTruthError(t, def, 5)
	t.Logf("mean error against the truth: static %.3f m, pvb %.3f m, delayed (replay default) %.3f m", static, pvb, delayed)
	if !(static > 1.5*pvb) {
		t.Errorf("static %.3f m is not well behind pvb %.3f m", static, pvb)
	}
	if !(delayed < pvb) {
		t.Errorf("the replay's delayed view %.3f m is not closer to the truth than pvb %.3f m", delayed, pvb)
	}
}

// TestAlternateGhost shows a second algorithm beside the first.
func TestAlternateGhost(t *testing.T) {
	rec := load(t)
	p := liveReplay(t, rec, deadreckon.ProjectiveVelocityBlend)
	if err := p.SetAlt(true, deadreckon.Static); err != nil {
		t.Fatal(err)
	}
	if err := p.Seek(12); err != nil {
		t.Fatal(err)
	}
	var snap game.Snapshot
	p.Snapshot(&snap)
	alts, moved := 0, 0
	for _, g := range snap.Ghosts {
		if g.Kind == game.GhostAlt {
			alts++
			if g.Error > 0.05 {
				moved++
			}
		}
	}
	if alts < 5 || moved == 0 {
		t.Errorf("%d A/B ghosts, %d away from their tanks; want one per tank, some apart", alts, moved)
	}
}

// TestSeekRepeats checks that seeking back and forth lands on the same picture.
func TestSeekRepeats(t *testing.T) {
	rec := load(t)
	p := liveReplay(t, rec, deadreckon.ProjectiveVelocityBlend)
	var a, b game.Snapshot
	if err := p.Seek(20); err != nil {
		t.Fatal(err)
	}
	p.Snapshot(&a)
	if err := p.Seek(4); err != nil {
		t.Fatal(err)
	}
	if err := p.Seek(20); err != nil {
		t.Fatal(err)
	}
	p.Snapshot(&b)
	if len(a.Tanks) != len(b.Tanks) || len(a.Tanks) == 0 {
		t.Fatalf("%d tanks, then %d", len(a.Tanks), len(b.Tanks))
	}
	for i := range a.Tanks {
		if a.Tanks[i].Position != b.Tanks[i].Position {
			t.Errorf("tank %d at %v, then %v", a.Tanks[i].ID, a.Tanks[i].Position, b.Tanks[i].Position)
		}
	}
}

// TestKillCam plays a kill from the shooter's side.
func TestKillCam(t *testing.T) {
	rec := load(t)
	p := liveReplay(t, rec, deadreckon.ProjectiveVelocityBlend)
	k, ok := p.KillBefore(rec.End)
	if !ok {
		t.Skip("no tank was destroyed in the test match")
	}
	if err := p.KillCam(k); err != nil {
		t.Fatal(err)
	}
	if got, on := p.KillCamOn(); !on || got != k {
		t.Fatalf("kill camera on %v (%v), want %v", got, on, k)
	}
	if math.Abs(p.Time()-(k.Time-replay.KillCamLead)) > 0.02 && k.Time-replay.KillCamLead > rec.Start {
		t.Errorf("kill camera starts at %v, want %v", p.Time(), k.Time-replay.KillCamLead)
	}
	for p.Time() < k.Time {
		if err := p.StepFrame(); err != nil {
			t.Fatal(err)
		}
	}
	var snap game.Snapshot
	p.Snapshot(&snap)
	found := false
	for _, tv := range snap.Tanks {
		found = found || tv.ID == k.Target
	}
	if !found {
		t.Errorf("the destroyed tank %d is not shown at its death", k.Target)
	}
	for p.Time() < k.Time+3 {
		if err := p.StepFrame(); err != nil {
			t.Fatal(err)
		}
	}
	if _, on := p.KillCamOn(); on {
		t.Error("the kill camera did not end after the kill")
	}
}

// TestDamagedPlaysWhatIsReadable cuts the recording in the middle: it loads up to the
// cut, says in one line where it stopped, and plays.
func TestDamagedPlaysWhatIsReadable(t *testing.T) {
	b, err := os.ReadFile(testLive.Path)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.tread")
	if err := os.WriteFile(cut, b[:len(b)/2+17], 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := replay.Load(cut)
	if err != nil {
		t.Fatal(err)
	}
	var se *record.StopError
	if !errors.As(rec.Stopped, &se) || strings.Contains(rec.Stopped.Error(), "\n") {
		t.Fatalf("stopped: %v", rec.Stopped)
	}
	if rec.End < 5 || rec.End > 25 {
		t.Errorf("half a 30 s recording ends at %v s", rec.End)
	}
	p, err := replay.NewPlayer(rec, replay.PlayerConfig{Map: testMap})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Seek(rec.End); err != nil {
		t.Fatal(err)
	}
	t.Log(rec.Stopped)
}

// TestSixteenTanksPerMinute records a minute of a sixteen-tank practice match (fifteen
// bots and the player, every bot's truth and the player's) and checks its size
// against the budget of 0.5 MB a minute.
func TestSixteenTanksPerMinute(t *testing.T) {
	if testing.Short() {
		t.Skip("a minute of a sixteen-tank match; skipped with -short")
	}
	live, err := recordtest.Practice(recordtest.Config{Map: testMap, Bots: 15, Seconds: 60, Seed: 4, Dir: t.TempDir(),
		Camera: camera, Link: impair.Link{Latency: 100 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.02}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(live.Path)
	if err != nil {
		t.Fatal(err)
	}
	s := live.Stats
	perMin := float64(st.Size()) / 1e6
	t.Logf("16 tanks, 60 s: %d bytes (%.3f MB/min); %d records, %.1f raw bytes each, %d blocks, %d dropped",
		st.Size(), perMin, s.Records, float64(s.RawBytes)/float64(s.Records), s.Blocks, s.Dropped)
	if perMin > 0.5 || s.Dropped != 0 {
		t.Errorf("a minute of sixteen tanks takes %.3f MB (%d records dropped), budget 0.5 MB", perMin, s.Dropped)
	}
}

// deathMatch records a practice match until the player's tank is destroyed, keeping
// the last ten seconds of the player's view in memory as a live match does.
func deathMatch(t *testing.T) *recordtest.Live {
	t.Helper()
	live, err := recordtest.Practice(recordtest.Config{Map: testMap, Bots: 7, Seconds: 60, Seed: 3, Dir: t.TempDir(),
		Camera: camera, Ring: 10 * time.Second, UntilDeath: true,
		Link: impair.Link{Latency: 100 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.02}})
	if err != nil {
		t.Fatal(err)
	}
	if !live.Died {
		t.Fatal("the player's tank was not destroyed in the test match")
	}
	return live
}

// TestLiveKillCam replays a death from what the player's match kept in memory: the
// last ten seconds, no more, up to the death; the kill camera shows the player's tank
// where the shooter's match showed it, frame by frame, up to the kill.
func TestLiveKillCam(t *testing.T) {
	const (
		span = 10.0
		// meanTol and maxTol bound how far the kill camera's victim may lie from where
		// the shooter's match drew it, m: the shooter's link is taken to be like the
		// recorder's, but their jitters (±20 ms) are independent, so at the top speed
		// of 15 m/s the two reckonings may differ by 0.3 m in a frame; the shooter's
		// ticks fall between the replay's. The mean stays under that: 0.08 m and
		// 0.16 m in the two practice matches this test has recorded.
		meanTol, maxTol = 0.25, 0.75
	)
	live := deathMatch(t)
	death := live.Frames[len(live.Frames)-1].Time
	rec, err := replay.ReadRing(live.Ring)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Start < death-span-record.DefaultRingFlush-0.02 || rec.Start > death-span+0.02 || math.Abs(rec.End-death) > 1e-6 {
		t.Errorf("memory holds %.3f s to %.3f s, want the last %.0f s to the death at %.3f s", rec.Start, rec.End, span, death)
	}
	p, err := replay.NewPlayer(rec, replay.PlayerConfig{Map: testMap})
	if err != nil {
		t.Fatal(err)
	}
	k, ok := p.LastDeath()
	if !ok || k.Target != testSelf(t, rec) || math.Abs(k.Time-death) > 1e-6 {
		t.Fatalf("last death %+v (%v): want the player's tank at %.3f s", k, ok, death)
	}
	if byID, ok := p.KillOf(k.Target); !ok || byID != k {
		t.Errorf("the kill of tank %d is %+v (%v), want %+v", k.Target, byID, ok, k)
	}
	if _, ok := p.KillOf(k.Shooter); ok {
		t.Errorf("the shooter %d was destroyed too, in a match that ended at the player's death", k.Shooter)
	}
	const lead = 3.5
	if err := p.KillCamFor(k, lead); err != nil {
		t.Fatal(err)
	}
	if math.Abs(p.Time()-(k.Time-lead)) > 0.02 {
		t.Errorf("kill camera starts at %.3f s, want %.3f s", p.Time(), k.Time-lead)
	}
	sum, worst, n := killCamOffsets(t, p, k, live.HostShown)
	if n < 100 {
		t.Fatalf("only %d kill camera frames to compare", n)
	}
	t.Logf("%d frames: the victim %.3f m from where the shooter's match drew it on average, %.3f m at most", n, sum/float64(n), worst)
	if sum/float64(n) > meanTol || worst > maxTol {
		t.Errorf("the kill camera's victim lies %.3f m (mean) and %.3f m (max) from the shooter's view, want under %.2f and %.2f",
			sum/float64(n), worst, meanTol, maxTol)
	}
	// A frame of the kill camera allocates nothing: it plays in a live match's loop.
	var snap game.Snapshot
	allocs := testing.AllocsPerRun(60, func() {
		_ = p.Advance(1.0 / 120)
		p.Snapshot(&snap)
	})
	if _, on := p.KillCamOn(); !on || allocs > 0.1 {
		t.Errorf("a kill camera frame allocates %.2f times (on %v)", allocs, on)
	}
}

// killCamOffsets plays the kill camera to the kill and returns how far it shows the
// target from where the shooter's match drew it, frame by frame (hs): summed, at
// most, and over how many frames.
func killCamOffsets(t *testing.T, p *replay.Player, k replay.Kill, hs []recordtest.Frame) (sum, worst float64, n int) {
	t.Helper()
	var snap game.Snapshot
	for p.Time() < k.Time-1e-9 {
		if err := p.StepFrame(); err != nil {
			t.Fatal(err)
		}
		p.Snapshot(&snap)
		i := sort.Search(len(hs), func(i int) bool { return hs[i].Time >= p.Time()-1e-9 })
		if i == len(hs) || hs[i].Time-p.Time() > 0.02 {
			continue
		}
		seen, ok := hs[i].Shown[k.Target]
		if !ok {
			continue
		}
		found := false
		for _, tv := range snap.Tanks {
			if tv.ID == k.Target {
				e := tv.Position.Sub(seen).Len()
				sum, worst, n, found = sum+e, math.Max(worst, e), n+1, true
			}
		}
		if !found {
			t.Fatalf("at %.3f s the kill camera does not show the player's tank", p.Time())
		}
	}
	return sum, worst, n
}

// testSelf returns the recorder's own tank destroyed in rec: its only own tank.
func testSelf(t *testing.T, rec *replay.Recording) uint32 {
	t.Helper()
	for id, tk := range rec.Tanks {
		if tk.Own {
			return id
		}
	}
	t.Fatal("the recording holds no tank of the recorder")
	return 0
}

// TestReplayCameraView: a replay told its camera's view reckons the tanks out of the
// picture and away from the camera in low mode and a tank in the picture in full, as
// a live match does, and keeps the view when it seeks back (a new match).
func TestReplayCameraView(t *testing.T) {
	rec := load(t)
	p := liveReplay(t, rec, game.DeadReckoning().Reckon.Algorithm)
	var snap game.Snapshot
	advance := func(d float64) {
		t.Helper()
		if err := p.Advance(d); err != nil {
			t.Fatal(err)
		}
		p.Snapshot(&snap)
	}
	advance(3)
	// From 80 m over the tanks, looking up: no tank is in the picture or within
	// game.UnseenLowDistance, but some are within game.HighModeDistance, which
	// would keep them in full were the view not known.
	var mid mgl64.Vec3
	for _, tv := range snap.Tanks {
		mid = mid.Add(tv.Position.Mul(1 / float64(len(snap.Tanks))))
	}
	up := mid.Add(mgl64.Vec3{0, 80, 0})
	near := 0
	for _, tv := range snap.Tanks {
		if tv.Position.Sub(up).Len() < game.HighModeDistance-20 {
			near++
		}
	}
	if near == 0 {
		t.Fatalf("no tank within %v m of %v: the test shows nothing", game.HighModeDistance-20, up)
	}
	p.SetCameraView(up, mgl64.Vec3{0, 1, 0}, 0.3)
	advance(0.5)
	checkModes := func(when string, high uint32) {
		t.Helper()
		if len(snap.Tanks) < 4 {
			t.Fatalf("%s: %d tanks in the replay", when, len(snap.Tanks))
		}
		for _, tv := range snap.Tanks {
			want := deadreckon.ModeLow
			if tv.ID == high {
				want = deadreckon.ModeHigh
			}
			if tv.Mode != want {
				t.Errorf("%s: tank %d at %.0f in mode %v, want %v", when, tv.ID, tv.Position, tv.Mode, want)
			}
		}
	}
	checkModes("looking away", 0)
	// Looking at one tank from 60 m: it alone is reckoned in full.
	target := snap.Tanks[len(snap.Tanks)/2]
	eye := target.Position.Add(mgl64.Vec3{0, 20, -57})
	p.SetCameraView(eye, target.Position.Sub(eye), 0.2)
	advance(0.1)
	if tv := snap.Tanks[len(snap.Tanks)/2]; tv.ID != target.ID || tv.Mode != deadreckon.ModeHigh {
		t.Errorf("tank %d in the picture, 60 m away: mode %v, want high", tv.ID, tv.Mode)
	}
	// Seeking back rebuilds the match, which is told the same view.
	p.SetCameraView(up, mgl64.Vec3{0, 1, 0}, 0.3)
	if err := p.Seek(p.Time() - 2); err != nil {
		t.Fatal(err)
	}
	advance(0.5)
	checkModes("looking away after a seek back", 0)
	// A view with no axis or no angle changes nothing.
	p.SetCameraView(eye, mgl64.Vec3{}, 0.2)
	p.SetCameraView(eye, target.Position.Sub(eye), 0)
	advance(0.1)
	checkModes("after views refused", 0)
}

// TestSeekStepsIsSeek: a seek taken a few steps at a time ends where one taken at
// once does, every tank in the same state to the bit, forward and back.
func TestSeekStepsIsSeek(t *testing.T) {
	rec := load(t)
	whole := liveReplay(t, rec, game.DeadReckoning().Reckon.Algorithm)
	parts := liveReplay(t, rec, game.DeadReckoning().Reckon.Algorithm)
	for _, to := range []float64{rec.Start + 7.3, rec.Start + 4.05} {
		if err := whole.Seek(to); err != nil {
			t.Fatal(err)
		}
		calls := 0
		for done := false; !done; calls++ {
			var err error
			if done, err = parts.SeekSteps(to, 7); err != nil {
				t.Fatal(err)
			}
			if calls > 10000 {
				t.Fatal("SeekSteps never reaches its time")
			}
		}
		if calls < 3 {
			t.Errorf("seek to %.2f s in steps of 7 took %d calls: the test shows nothing", to, calls)
		}
		var a, b game.Snapshot
		whole.Snapshot(&a)
		parts.Snapshot(&b)
		if whole.Time() != parts.Time() || len(a.Tanks) != len(b.Tanks) || len(a.Tanks) == 0 {
			t.Fatalf("seek to %.2f s: at %v with %d tanks in parts, %v with %d at once", to, parts.Time(), len(b.Tanks), whole.Time(), len(a.Tanks))
		}
		for i := range a.Tanks {
			if a.Tanks[i].Position != b.Tanks[i].Position || a.Tanks[i].Orientation != b.Tanks[i].Orientation {
				t.Errorf("seek to %.2f s: tank %d at %v in parts, %v at once", to, a.Tanks[i].ID, b.Tanks[i].Position, a.Tanks[i].Position)
			}
		}
	}
}
