package lab

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/treadline/treadline/assets/maps"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/record"
	"github.com/treadline/treadline/replay"
	"github.com/treadline/treadline/terrain"
)

// AllTanks is the Scenario of a replay's summed rows.
const AllTanks = "all tanks"

// replayTank is one tank of a recording the lab measures: its truth as a path, and the
// link its updates came over.
type replayTank struct {
	tank *replay.Tank
	path *Path
	link *RecordedLink
}

// runReplay measures every tank whose truth the recording o.Replay holds, with every
// algorithm, over the recorded link or (o.ReplayModelled) the modelled one, and writes
// the per-tank and summed results.
func runReplay(ctx context.Context, w io.Writer, o Options) error {
	rec, err := replay.Load(o.Replay)
	if err != nil {
		return err
	}
	tanks, skipped, err := replayTanks(rec, o)
	if err != nil {
		return err
	}
	ground := replayGround(rec, o)
	if ground.mp != nil {
		for _, k := range tanks {
			k.path.Ground, k.path.Clamp = ground.mp, deadreckon.ClampAlways
			k.path.Footprint = rec.Meta.DeadReckoning.Reckon.Clamp.Footprint
		}
	}
	if o.ExportTrace != "" {
		if err := exportTraces(o.ExportTrace, tanks); err != nil {
			return err
		}
	}
	na := len(o.Algos)
	all := make([]Result, len(tanks)*na)
	delays := make([][]float64, len(all))     // each run's start delays, for the sums
	turnDelays := make([][]float64, len(all)) // and its turn stop delays
	err = forEach(ctx, len(all), func(sc *scratch, i int) error {
		k := tanks[i/na]
		s := o.setup(k.path, o.Algos[i%na])
		if !o.ReplayModelled {
			s.Recorded = k.link
		}
		r, err := sc.simulateRuns(s, o.Runs)
		if err != nil {
			return err
		}
		if !o.ReplayModelled {
			markRecorded(&r, rec)
		}
		all[i] = r
		if o.Runs > 1 {
			delays[i], turnDelays[i] = slices.Clone(sc.delays), slices.Clone(sc.turnDelays)
		} else {
			delays[i], turnDelays[i] = slices.Clone(sc.player.delays), slices.Clone(sc.turns.delays)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sums := make([]Result, na)
	for a := range na {
		var rs []Result
		var ds, ts [][]float64
		for k := range tanks {
			rs = append(rs, all[k*na+a])
			ds = append(ds, delays[k*na+a])
			ts = append(ts, turnDelays[k*na+a])
		}
		sums[a] = sumTanks(rs, ds, ts)
	}
	if o.JSON {
		return writeJSON(w, append(all, sums...))
	}
	if err := writeReplayHeader(w, o, rec, len(tanks), skipped, ground.note); err != nil {
		return err
	}
	if err := writeResults(w, append(all, sums...)); err != nil {
		return err
	}
	return writeCompareNotes(w, all)
}

// replayGroundOf is the ground a replay's tanks are clamped to, and what the header
// says of it.
type replayGroundOf struct {
	mp   *terrain.Map
	note string
}

// replayGround loads the recording's map for the recorded link, by its name, from
// the options' MapDir or the built-in maps.
func replayGround(rec *replay.Recording, o Options) replayGroundOf {
	switch {
	case o.ReplayModelled:
		return replayGroundOf{note: "no ground clamp, as for -trace"}
	case rec.Meta.Map == "":
		return replayGroundOf{note: "no ground clamp (no map)"}
	}
	mp, err := maps.Library{Dirs: []string{o.MapDir}}.Load(rec.Meta.Map)
	if err != nil {
		return replayGroundOf{note: fmt.Sprintf("no ground clamp (map %q not loaded: %v)", rec.Meta.Map, err)}
	}
	return replayGroundOf{mp: mp, note: fmt.Sprintf("clamped to the ground of map %s as the game clamps", rec.Meta.Map)}
}

// markRecorded describes the recorded link in a result.
func markRecorded(r *Result, rec *replay.Recording) {
	r.Publish = "recorded"
	r.RateHz, r.PosThresholdM, r.RotThresholdDeg, r.MinIntervalS, r.HeartbeatS = 0, 0, 0, 0, 0
	r.LatencyS, r.JitterS, r.Loss, r.LossBurst, r.Reorder = rec.Latency(), 0, 0, 0, 0
	if r.Sent > 0 {
		r.Loss = float64(r.Lost) / float64(r.Sent)
	}
}

// replayTanks builds the paths and recorded links of every tank with truth long
// enough to measure; skipped counts the others.
func replayTanks(rec *replay.Recording, o Options) (tanks []replayTank, skipped int, err error) {
	for _, id := range rec.TankIDs() {
		t := rec.Tanks[id]
		tr := truthTrace(t)
		if tr == nil {
			continue
		}
		p, err := tr.Path(tankName(t), o.FPS, o.Duration)
		if err != nil {
			return nil, 0, err
		}
		if p.Duration() <= warmupOf(o.Warmup)+1 {
			skipped++
			continue
		}
		tanks = append(tanks, replayTank{tank: t, path: p, link: recordedLink(rec, t, tr.Samples[0].Time)})
	}
	if len(tanks) == 0 {
		err := fmt.Errorf("replay %s: no tank's truth lasts longer than the %.1f s warm-up and a second (%d too short)",
			o.Replay, warmupOf(o.Warmup), skipped)
		if rec.Stopped != nil { // the reason, when the file is damaged
			err = fmt.Errorf("replay %s: %w (and so no tank's truth lasts longer than the %.1f s warm-up and a second)",
				o.Replay, rec.Stopped, warmupOf(o.Warmup))
		}
		return nil, skipped, err
	}
	return tanks, skipped, nil
}

// tankName is how results and trace files name a tank: its name and actor id.
func tankName(t *replay.Tank) string {
	name := strings.Map(func(r rune) rune {
		if r == ' ' || r == '/' || r == '\\' || r == ',' || r < ' ' {
			return '_'
		}
		return r
	}, t.Name)
	if name == "" {
		name = "tank"
	}
	return fmt.Sprintf("%s-%d", name, t.ID)
}

// truthSamples returns a tank's true poses, one per instant (the last), as recorded.
func truthSamples(t *replay.Tank) []Pose {
	var out []Pose
	for _, p := range t.Truth {
		s := Pose{Time: p.Time, Position: p.Position, Orientation: p.Orientation}
		if n := len(out); n > 0 && !(s.Time > out[n-1].Time) {
			out[n-1] = s
			continue
		}
		out = append(out, s)
	}
	return out
}

// truthTrace returns a tank's truth as a trace, exactly as ReadTrace reads it back
// from the file exportTraces writes, or nil when it has fewer than two instants.
func truthTrace(t *replay.Tank) *Trace {
	samples := truthSamples(t)
	if len(samples) < 2 {
		return nil
	}
	for i := range samples {
		q := samples[i].Orientation
		samples[i].Orientation = q.Scale(1 / q.Len()) // as ReadTrace normalises
	}
	return &Trace{Samples: samples, HasOrientation: true}
}

// recordedLink is the link tank t's updates came over, in path time from t0.
func recordedLink(rec *replay.Recording, t *replay.Tank, t0 float64) *RecordedLink {
	l := &RecordedLink{
		UpdateBytes: wire.BatchHeaderSize + wire.UpdateSize(2),
		ClockOffset: func(pt float64) float64 { return rec.ClockOffset(pt+t0) + t0 },
		Reckon:      rec.Meta.DeadReckoning.Reckon,
	}
	for _, it := range rec.Events {
		if ev := &it.Event; ev.Kind == net.EventSpawn && ev.Actor == t.ID {
			at := it.Time
			if len(t.Received) > 0 {
				// The recorder's own tank's updates reached the host before its
				// spawn came back to the recorder.
				at = math.Min(at, t.Received[0].Arrival)
			}
			l.Deliveries = append(l.Deliveries, Delivery{State: ev.State, Break: true, Arrival: at - t0})
			break
		}
	}
	for _, u := range t.Received {
		l.Deliveries = append(l.Deliveries, Delivery{State: u.State, Arrival: u.Arrival - t0})
	}
	for _, at := range t.SentAt {
		l.Sends = append(l.Sends, at-t0)
	}
	if len(t.Received) == 0 {
		// The recorder's own tank, whose arrivals only an in-process host records:
		// without them, it reaches others a one-way delay after it publishes.
		lat := rec.Latency()
		for _, s := range t.Sent {
			at := s.Time
			s.Time = math.Max(0, at+rec.ClockOffset(at))
			l.Deliveries = append(l.Deliveries, Delivery{State: s, Arrival: at - t0 + lat})
		}
	}
	return l
}

// sumTanks sums one algorithm's results over every tank: frame-weighted means of the
// means, the 95th percentiles, the rates and the shares; the largest of the maxima;
// sums of the counts; and the start delays' and the turn stop delays' 95th
// percentiles over all of them (delays[i] and turnDelays[i] are rs[i]'s).
func sumTanks(rs []Result, delays, turnDelays [][]float64) Result {
	acc := rs[0]
	acc.Scenario = AllTanks
	acc.Record = nil
	acc.MeanErrPastM, acc.P95ErrPastM = copyPtr(acc.MeanErrPastM), copyPtr(acc.P95ErrPastM)
	acc.MaxDepthM, acc.BelowGroundShare = copyPtr(acc.MaxDepthM), copyPtr(acc.BelowGroundShare)
	acc.TrueMaxDepthM, acc.TrueBelowGroundShare = copyPtr(acc.TrueMaxDepthM), copyPtr(acc.TrueBelowGroundShare)
	acc.MaxUnderTruthM = copyPtr(acc.MaxUnderTruthM)
	means := func(r *Result) []*float64 {
		return []*float64{&r.MeanErrM, &r.P95ErrM, &r.MeanHeadingDeg, &r.RMSJerk, &r.TrueRMSJerk, &r.UpdatesPerS,
			&r.BytesPerS, &r.DurationS, &r.StalePerMin, &r.ReversalCount, r.MeanErrPastM, r.P95ErrPastM,
			r.BelowGroundShare, r.TrueBelowGroundShare}
	}
	maxima := func(r *Result) []*float64 {
		return []*float64{&r.MaxErrM, &r.MaxJumpM, &r.MaxPopM, &r.MaxDVMPS, &r.MaxOvershootM, &r.MaxHeadingOvershootDeg, r.MaxDepthM,
			r.TrueMaxDepthM, r.MaxUnderTruthM}
	}
	w := float64(acc.Frames)
	for _, v := range means(&acc) {
		if v != nil {
			*v *= w
		}
	}
	for k := 1; k < len(rs); k++ {
		r := rs[k]
		f := float64(r.Frames)
		for i, v := range means(&r) {
			if a := means(&acc)[i]; a != nil && v != nil {
				*a += f * *v
			}
		}
		for i, v := range maxima(&r) {
			if a := maxima(&acc)[i]; a != nil && v != nil {
				*a = math.Max(*a, *v)
			}
		}
		acc.Frames += r.Frames
		acc.Sent += r.Sent
		acc.Lost += r.Lost
		acc.Rejected += r.Rejected
		acc.EncodeErrors += r.EncodeErrors
		acc.Stops += r.Stops
		acc.Starts += r.Starts
		acc.Turns += r.Turns
		acc.staleHeard += r.staleHeard
		w += f
	}
	for _, v := range means(&acc) {
		if v != nil && w > 0 {
			*v /= w
		}
	}
	var pool []float64
	for _, d := range delays {
		pool = append(pool, d...)
	}
	acc.StartDelayP95S = 0
	if len(pool) > 0 {
		acc.StartDelayP95S = percentile(pool, 0.95)
	}
	pool = pool[:0]
	for _, d := range turnDelays {
		pool = append(pool, d...)
	}
	acc.TurnStopDelayP95S = 0
	if len(pool) > 0 {
		acc.TurnStopDelayP95S = percentile(pool, 0.95)
	}
	if acc.Sent > 0 && acc.Publish == "recorded" {
		acc.Loss = float64(acc.Lost) / float64(acc.Sent)
	}
	if acc.UpdatesPerS > 0 {
		acc.BytesPerUpdate = acc.BytesPerS / acc.UpdatesPerS
	}
	return acc
}

// writeReplayHeader says what the replay measured.
func writeReplayHeader(w io.Writer, o Options, rec *replay.Recording, tanks, skipped int, ground string) error {
	var b strings.Builder
	m := rec.Meta
	fmt.Fprintf(&b, "replay %s: %s view of a match on %s, %s long, recorded by %s\n", filepath.Base(o.Replay),
		m.Perspective, dashIfEmpty(m.Map), record.Clock(rec.Duration()), dashIfEmpty(m.Recorder))
	if rec.Stopped != nil {
		fmt.Fprintf(&b, "%v\n", rec.Stopped)
	}
	fmt.Fprintf(&b, "%d tanks with truth measured", tanks)
	if skipped > 0 {
		fmt.Fprintf(&b, " (%d lived too briefly)", skipped)
	}
	fmt.Fprintf(&b, "; %s\n", ground)
	if o.ReplayModelled {
		pub, _ := o.Publish.withDefaults()
		fmt.Fprintf(&b, "each truth published again: %s; game: %s\n", pub.describe(), describeGame(game.DeadReckoning()))
		fmt.Fprintf(&b, "link: %s; clock error %s; %s\n", describeLink(o.Network), ms(o.ClockError), o.seeds())
	} else {
		fmt.Fprintf(&b, "link: as recorded (median one-way delay %s; the recorded updates at their recorded arrival times);\n", ms(rec.Latency()))
		fmt.Fprintf(&b, "game: %s\n", describeGame(m.DeadReckoning))
	}
	fmt.Fprintf(&b, "%.0f fps; measured after %.1f s warm-up per tank; %s: frame-weighted over every tank\n\n",
		o.FPS, warmupOf(o.Warmup), AllTanks)
	_, err := io.WriteString(w, b.String())
	return err
}

func dashIfEmpty(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// exportTraces writes each tank's truth as a CSV trace (t,x,y,z,qw,qx,qy,qz) that
// -trace reads, one file per tank, named as the results name it.
func exportTraces(dir string, tanks []replayTank) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("export traces: %w", err)
	}
	for _, k := range tanks {
		path := filepath.Join(dir, k.path.Name+".csv")
		if err := writeTrace(path, truthSamples(k.tank)); err != nil {
			return err
		}
	}
	return nil
}

// writeTrace writes samples to path in the CSV form ReadTrace reads, every number in
// the shortest form that reads back exactly.
func writeTrace(path string, samples []Pose) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("export trace: %w", err)
	}
	bw := bufio.NewWriter(f)
	bw.WriteString("t,x,y,z,qw,qx,qy,qz\n")
	var line []byte
	for _, s := range samples {
		line = line[:0]
		for i, v := range [8]float64{s.Time, s.Position[0], s.Position[1], s.Position[2],
			s.Orientation.W, s.Orientation.V[0], s.Orientation.V[1], s.Orientation.V[2]} {
			if i > 0 {
				line = append(line, ',')
			}
			line = strconv.AppendFloat(line, v, 'g', -1, 64)
		}
		line = append(line, '\n')
		bw.Write(line)
	}
	err = bw.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("export trace %s: %w", path, err)
	}
	return nil
}
