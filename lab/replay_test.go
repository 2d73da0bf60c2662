package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/record/recordtest"
	"github.com/treadline/treadline/replay"
	"github.com/treadline/treadline/terrain"
)

// practiceLink is the link of the recorded practice match.
var practiceLink = impair.Link{Latency: 100 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.02}

var (
	practiceOnce sync.Once
	practice     *recordtest.Live
	practiceErr  error
	practiceMaps string // the directory the practice map is saved in
)

// recordedPractice records, once, a 30 s practice match of four bots.
func recordedPractice(t *testing.T) *recordtest.Live {
	t.Helper()
	practiceOnce.Do(func() {
		var mp *terrain.Map
		mp, practiceErr = terrain.Generate(terrain.GenerateConfig{Seed: 7, Size: 256, Samples: 129})
		if practiceErr != nil {
			return
		}
		dir, err := os.MkdirTemp("", "lab-replay")
		if err != nil {
			practiceErr = err
			return
		}
		practiceMaps = dir
		if practiceErr = mp.Save(filepath.Join(dir, mp.Name())); practiceErr != nil {
			return
		}
		practice, practiceErr = recordtest.Practice(recordtest.Config{Map: mp, Bots: 4, Seconds: 30, Seed: 3, Dir: dir,
			Camera: mgl64.Vec3{0, 40, 0}, Link: practiceLink})
	})
	if practiceErr != nil {
		t.Fatal(practiceErr)
	}
	return practice
}

// runJSON runs the lab with o and returns its JSON results.
func runJSON(t *testing.T, o Options) []Result {
	t.Helper()
	o.JSON = true
	var buf bytes.Buffer
	if err := Run(context.Background(), &buf, o); err != nil {
		t.Fatal(err)
	}
	var out []Result
	dec := json.NewDecoder(&buf)
	for dec.More() {
		var r Result
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// TestReplayModelledEqualsTrace checks that -replay over a modelled link gives, tank
// by tank, the figures the same lab gives each exported truth played as a -trace
// over the same link and seed: the same run, bit for bit.
func TestReplayModelledEqualsTrace(t *testing.T) {
	live := recordedPractice(t)
	dir := t.TempDir()
	algos, err := ParseAlgos("static,pvb,pvb-ts,delayed,game")
	if err != nil {
		t.Fatal(err)
	}
	base := Options{Algos: algos, Network: practiceLink, Seed: 5, Publish: PublishConfig{Rate: 5}}
	rep := base
	rep.Replay, rep.ReplayModelled, rep.ExportTrace = live.Path, true, dir
	got := runJSON(t, rep)
	files, _ := filepath.Glob(filepath.Join(dir, "*.csv"))
	if len(files) < 4 {
		t.Fatalf("%d traces exported, want one per tank", len(files))
	}
	byTank := map[string][]Result{}
	for _, r := range got {
		byTank[r.Scenario] = append(byTank[r.Scenario], r)
	}
	for _, f := range files {
		tr := base
		tr.Trace = f
		want := runJSON(t, tr)
		name := strings.TrimSuffix(filepath.Base(f), ".csv")
		have := byTank[name]
		if len(have) != len(want) {
			t.Fatalf("%s: %d replay results, %d trace results", name, len(have), len(want))
		}
		for i := range want {
			if !reflect.DeepEqual(have[i], want[i]) {
				t.Errorf("%s/%s: replay %+v\ntrace %+v", name, want[i].Algo, have[i], want[i])
			}
		}
	}
	if n := len(byTank[AllTanks]); n != len(algos) {
		t.Errorf("%d summed rows, want %d", n, len(algos))
	}
}

// TestReplayRecordedLink measures the recorded stream itself: the game's own view is
// as close to the truth as the live match showed it, static lags further than pvb,
// and the losses counted are the link's.
func TestReplayRecordedLink(t *testing.T) {
	live := recordedPractice(t)
	algos, err := ParseAlgos("static,pvb,game")
	if err != nil {
		t.Fatal(err)
	}
	rs := runJSON(t, Options{Replay: live.Path, Algos: algos, MapDir: practiceMaps})
	own := ownTankPrefix(t, live.Path)
	sums := map[string]Result{}
	var bots []Result // the game's view of the bots: what the live match showed
	for _, r := range rs {
		if r.Scenario == AllTanks {
			sums[r.Algo] = r
		} else if r.Algo == "game" && !strings.HasPrefix(r.Scenario, own) {
			bots = append(bots, r)
		}
		if r.Publish != "recorded" {
			t.Errorf("%s/%s published %q, want recorded", r.Scenario, r.Algo, r.Publish)
		}
	}
	st, pvb, gm := sums["static"], sums["pvb"], sums["game"]
	t.Logf("recorded link, all tanks: static %.3f m, pvb %.3f m, game %.3f m mean; sent %d, lost %d",
		st.MeanErrM, pvb.MeanErrM, gm.MeanErrM, gm.Sent, gm.Lost)
	if !(st.MeanErrM > 1.5*pvb.MeanErrM) {
		t.Errorf("static %.3f m is not well behind pvb %.3f m", st.MeanErrM, pvb.MeanErrM)
	}
	if loss := float64(gm.Lost) / float64(gm.Sent); gm.Sent == 0 || loss > 0.1 {
		t.Errorf("%d of %d updates lost on a 2%% link", gm.Lost, gm.Sent)
	}
	// The live match showed the bots this far from the truth, frame by frame; the
	// lab reckons the same updates at its own frames, clamping at the tank.
	lab, shown := sumTanks(bots, nil, nil).MeanErrM, liveError(t, live)
	t.Logf("the bots' mean error: %.4f m in the lab over the recorded link, %.4f m on the live screen", lab, shown)
	if math.Abs(lab-shown) > 0.2*shown {
		t.Errorf("the lab puts the game's mean error on the bots at %.4f m, the live match showed %.4f m", lab, shown)
	}
}

// liveError is the mean distance between the bots as the live match showed them and
// their truth, over the frames after the warm-up.
func liveError(t *testing.T, live *recordtest.Live) float64 {
	t.Helper()
	rec, err := replay.Load(live.Path)
	if err != nil {
		t.Fatal(err)
	}
	sum, n := 0.0, 0
	for _, f := range live.Frames {
		for id, p := range f.Shown {
			tk := rec.Tanks[id]
			if tk == nil || len(tk.Truth) == 0 || f.Time < tk.Truth[0].Time+DefaultWarmup {
				continue
			}
			if pose, ok := tk.TruthAt(f.Time, 0.1); ok {
				sum += pose.Position.Sub(p).Len()
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no live frame to compare")
	}
	return sum / float64(n)
}

// TestReplayTable prints the human table with its header.
func TestReplayTable(t *testing.T) {
	live := recordedPractice(t)
	var buf bytes.Buffer
	algos, _ := ParseAlgos("pvb,game")
	if err := Run(context.Background(), &buf, Options{Replay: live.Path, Algos: algos}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"client view", "link: as recorded", AllTanks, ownTankPrefix(t, live.Path)} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
}

// TestSumTanks checks how per-tank results add up: frame-weighted means, the largest
// maxima, summed counts, the start delays pooled.
func TestSumTanks(t *testing.T) {
	past := func(v float64) *float64 { return &v }
	a := Result{Frames: 100, MeanErrM: 1, P95ErrM: 2, MaxErrM: 5, StalePerMin: 3, Sent: 10, Lost: 1, Starts: 2, MeanErrPastM: past(1)}
	b := Result{Frames: 300, MeanErrM: 2, P95ErrM: 4, MaxErrM: 3, StalePerMin: 1, Sent: 30, Lost: 3, Starts: 1, MeanErrPastM: past(3)}
	s := sumTanks([]Result{a, b}, [][]float64{{0.1, 0.5}, {0.3}}, nil)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"mean", s.MeanErrM, 1.75}, {"p95", s.P95ErrM, 3.5}, {"max", s.MaxErrM, 5}, {"stale/min", s.StalePerMin, 1.5},
		{"past mean", *s.MeanErrPastM, 2.5}, {"start p95", s.StartDelayP95S, 0.5},
		{"frames", float64(s.Frames), 400}, {"sent", float64(s.Sent), 40}, {"starts", float64(s.Starts), 3},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
	if s.Scenario != AllTanks || *a.MeanErrPastM != 1 {
		t.Errorf("scenario %q; the first tank's figures changed: %v", s.Scenario, *a.MeanErrPastM)
	}
}

// ownTankPrefix returns how the table names the recorder's own tanks: the name the
// host gave them with spaces as underscores, then a dash (the host names a player's
// tanks after the player).
func ownTankPrefix(t *testing.T, path string) string {
	t.Helper()
	rec, err := replay.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range rec.Tanks {
		if tk.Own {
			return strings.ReplaceAll(tk.Name, " ", "_") + "-"
		}
	}
	t.Fatal("the recording holds none of the recorder's own tanks")
	return ""
}

// TestReplayCoversTheRecordersTank checks that over the recorded link the lab plays
// the recorder's own tank as its updates arrived at the host, as the recording holds
// them (the practice's in-process host records them), not a modelled delay after
// they were sent: every arrival as recorded, every send counted.
func TestReplayCoversTheRecordersTank(t *testing.T) {
	live := recordedPractice(t)
	rec, err := replay.Load(live.Path)
	if err != nil {
		t.Fatal(err)
	}
	var own *replay.Tank
	for _, id := range rec.TankIDs() {
		if tk := rec.Tanks[id]; tk.Own && len(tk.Truth) > 1 {
			own = tk
			break
		}
	}
	if own == nil {
		t.Fatal("the recording holds no own tank with truth")
	}
	if len(own.Received) == 0 || len(own.SentAt) < len(own.Received) {
		t.Fatalf("own tank: %d arrivals at the host for %d sends", len(own.Received), len(own.SentAt))
	}
	t0 := own.Truth[0].Time
	l := recordedLink(rec, own, t0)
	if len(l.Deliveries) != 1+len(own.Received) || !l.Deliveries[0].Break || len(l.Sends) != len(own.SentAt) {
		t.Fatalf("the recorded link delivers %d updates and counts %d sends; the recording holds a spawn, %d arrivals and %d sends",
			len(l.Deliveries), len(l.Sends), len(own.Received), len(own.SentAt))
	}
	delay := 0.0
	for i, u := range own.Received {
		d := l.Deliveries[i+1]
		if math.Abs(d.Arrival-(u.Arrival-t0)) > 1e-9 || d.State.Time != u.State.Time {
			t.Fatalf("delivery %d at %.6f s of stamp %.6f, recorded %.6f s of stamp %.6f", i, d.Arrival, d.State.Time,
				u.Arrival-t0, u.State.Time)
		}
		delay += u.Arrival + rec.ClockOffset(u.Arrival) - u.State.Time
	}
	// The test rig's way to the host is not impaired: the recorder's updates arrive
	// as they are sent, not the other way's delay later.
	delay /= float64(len(own.Received))
	t.Logf("own tank: %d sends, %d arrivals at the host, %.1f ms after their stamps on average; the way back: %.1f ms",
		len(own.SentAt), len(own.Received), 1e3*delay, 1e3*rec.Latency())
	if math.Abs(delay) > 0.01 || rec.Latency() < 0.05 {
		t.Errorf("own updates arrive %.1f ms after their stamps, the others' %.1f ms", 1e3*delay, 1e3*rec.Latency())
	}
	checkOwnRow(t, live.Path)
}

// checkOwnRow checks that drlab -replay over the recorded link of the recording at
// path has a row of the recorder's own tank, with the updates it sent.
func checkOwnRow(t *testing.T, path string) {
	t.Helper()
	algos, _ := ParseAlgos("game")
	prefix := ownTankPrefix(t, path)
	for _, r := range runJSON(t, Options{Replay: path, Algos: algos, MapDir: practiceMaps}) {
		if strings.HasPrefix(r.Scenario, prefix) && r.Publish == "recorded" && r.Sent > 0 {
			return
		}
	}
	t.Errorf("no row of the recorder's tank (%s…) over the recorded link", prefix)
}
