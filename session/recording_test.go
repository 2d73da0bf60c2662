package session

import (
	"context"
	"github.com/treadline/treadline/internal/memnet"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/record"
)

// TestPracticeRecords records a practice match over QUIC (on memnet, in a bubble): the player's view,
// the player's tank's truth and the bots' (run by the in-process host), one clock.
func TestPracticeRecords(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a match over QUIC; skipped with -short")
	}
	synctest.Test(t, func(t *testing.T) {
		lan := memnet.New()
		path := filepath.Join(t.TempDir(), "practice"+RecordExt)
		m, sess, err := Practice(context.Background(), PracticeConfig{Wrap: lan.Wrap, Match: game.Config{Map: testmaps.Small(t), Name: "tester"}, Bots: 3,
			Record: Recording{Path: path, Program: "test", Now: time.Now}})
		if err != nil {
			t.Fatal(err)
		}
		runFor(t, 3*time.Second, physics.Input{Throttle: 1, Steer: 0.3}, m)
		if !sess.Recording() {
			t.Error("Recording() false while the match is recorded")
		}
		self, _ := m.Self()
		if err := sess.Close(); err != nil {
			t.Fatal(err)
		}
		if sess.Recording() {
			t.Error("Recording() true after the session closed")
		}
		r, err := record.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		meta := r.Meta()
		if meta.Perspective != record.Client || meta.Player == 0 || meta.Program != "test" || meta.Started == "" || meta.Link == nil {
			t.Errorf("meta %+v", meta)
		}
		sum := readPractice(t, r, self)
		count, truths, lastFrame, maxTruth := sum.count, sum.truths, sum.lastFrame, sum.maxTruth
		checkUplink(t, sum.uplink)
		if count[record.KindFrame] < 60 || count[record.KindState] < 10 || count[record.KindSent] < 3 || count[record.KindMessage] < 4 {
			t.Errorf("records by kind: %v", count)
		}
		if len(truths) != 4 || truths[self] < 60 {
			t.Errorf("true poses by tank %v, want the player's (%d) and three bots'", truths, self)
		}
		// The bots run on the host's clock: their truth is put on the player's.
		if d := maxTruth - lastFrame; d > 0.5 || d < -0.5 {
			t.Errorf("the last true pose at %.3f s, the last frame at %.3f s: not one clock", maxTruth, lastFrame)
		}
	})
}

// checkUplink checks the player's own updates as the practice's in-process host
// recorded them, each arriving after its stamp by uplink[i] s: over the practice's
// impaired link, a practice's lag later.
func checkUplink(t *testing.T, uplink []float64) {
	t.Helper()
	slices.Sort(uplink)
	if len(uplink) < 3 {
		t.Errorf("%d of the player's own updates recorded as they reached the host", len(uplink))
	} else if lag, want := uplink[len(uplink)/2], DefaultPracticeLag.Seconds(); lag < want/2 || lag > 2*want {
		t.Errorf("the player's updates reach the host %.1f ms after their stamps (median), want about %.0f ms", 1e3*lag, 1e3*want)
	}
}

// practiceSummary is what TestPracticeRecords reads of a recording.
type practiceSummary struct {
	count               map[record.Kind]int
	truths              map[uint32]int // true poses by tank
	lastFrame, maxTruth float64
	uplink              []float64 // the player's own updates: arrival at the host after their stamp, s
}

// readPractice reads a practice's recording whose player's tank is self.
func readPractice(t *testing.T, r *record.Reader, self uint32) practiceSummary {
	t.Helper()
	sum := practiceSummary{count: map[record.Kind]int{}, truths: map[uint32]int{}}
	var offset float64
	var rec record.Record
	for r.Next(&rec) {
		sum.count[rec.Kind]++
		switch rec.Kind {
		case record.KindFrame:
			sum.lastFrame, offset = rec.Time, rec.ClockOffset
		case record.KindTruth, record.KindTruthKey:
			sum.truths[rec.Truth.Actor]++
			sum.maxTruth = max(sum.maxTruth, rec.Time)
		case record.KindState:
			if uint32(rec.Update.Actor) == self {
				sum.uplink = append(sum.uplink, rec.Arrival+offset-rec.Update.State.Time)
			}
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return sum
}

// TestRecordingUnwritable starts a match whose recording cannot be written: it says so
// once, in one line, and the match plays.
func TestRecordingUnwritable(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a match over QUIC; skipped with -short")
	}
	synctest.Test(t, func(t *testing.T) {
		lan := memnet.New()
		var (
			mu      sync.Mutex
			reports []string
		)
		report := func(err error) {
			mu.Lock()
			reports = append(reports, err.Error())
			mu.Unlock()
		}
		path := filepath.Join(t.TempDir(), "missing", "dir", "x"+RecordExt)
		m, sess, err := Practice(context.Background(), PracticeConfig{Wrap: lan.Wrap, Match: game.Config{Map: testmaps.Small(t)}, Bots: 1,
			Record: Recording{Path: path, Report: report}})
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		runFor(t, 500*time.Millisecond, physics.Input{Throttle: 1}, m)
		if sess.Recording() {
			t.Error("Recording() true for a file that could not be made")
		}
		mu.Lock()
		defer mu.Unlock()
		if len(reports) != 1 || strings.Contains(reports[0], "\n") || !strings.Contains(reports[0], "x"+RecordExt) {
			t.Errorf("reports %q: want one line naming the file", reports)
		}
	})
}

// TestPracticeKeepsRecentInMemory plays a practice that keeps its last second in
// memory and no file: Session.Recent holds the player's own view of that second,
// opened by its own tank's spawn from before it.
func TestPracticeKeepsRecentInMemory(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a match over QUIC; skipped with -short")
	}
	synctest.Test(t, func(t *testing.T) {
		lan := memnet.New()
		m, sess, err := Practice(context.Background(), PracticeConfig{Wrap: lan.Wrap, Match: game.Config{Map: testmaps.Small(t), Name: "tester"}, Bots: 2,
			Record: Recording{Recent: time.Second}})
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		if sess.Recent == nil {
			t.Fatal("no memory of the match")
		}
		if sess.Recording() {
			t.Error("Recording() true for the kill camera's memory alone")
		}
		runFor(t, 2500*time.Millisecond, physics.Input{Throttle: 1}, m)
		self, _ := m.Self()
		r, err := sess.Recent.Reader()
		if err != nil {
			t.Fatal(err)
		}
		if meta := r.Meta(); meta.Perspective != record.Client || meta.Player == 0 {
			t.Errorf("memory's meta %+v: want the player's view", meta)
		}
		first, last := math.Inf(1), 0.0
		spawned, sent := false, 0
		var rec record.Record
		for r.Next(&rec) {
			first, last = math.Min(first, rec.Time), math.Max(last, rec.Time)
			switch rec.Kind {
			case record.KindMessage:
				if s, ok := rec.Message.(*wire.Spawn); ok && uint32(s.Actor) == self {
					spawned = true
				}
			case record.KindSent:
				sent++
			}
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		if span := last - first; span < 1 || span > 1+2*record.DefaultRingFlush {
			t.Errorf("memory spans %.3f s (%.3f to %.3f), want a second and at most a block more", span, first, last)
		}
		if !spawned || sent == 0 {
			t.Errorf("memory holds the player's tank's spawn %v and %d of its updates", spawned, sent)
		}
	})
}
