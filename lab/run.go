package lab

import (
	"errors"
	"fmt"
	"math"

	"github.com/treadline/treadline/tank"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/net/wire"
)

// ownerClockOffset is how far the owner's clock runs ahead of the remote peer's in
// every run, s. A non-zero offset makes a clock-synchronisation mistake visible:
// timestamps are only useful converted with the right offset.
const ownerClockOffset = 1000.0

// DefaultWarmup is how long a run goes before it is measured, s: time for the first
// updates to arrive and the first blends to settle.
const DefaultWarmup = 2.0

// Off turns off the features of this package's options whose fields say they may be
// Off: the warm-up. Zero never means off: a zero field takes its default.
const Off = -1

// Setup is one lab run: a true path, how the owner publishes it, the link, and how the
// remote peer shows it.
type Setup struct {
	// Path is the truth. Required.
	Path *Path
	// Algo is how the remote peer shows the actor.
	Algo Algo
	// Publish says when and what the owner publishes.
	Publish PublishConfig
	// Network is the link from owner to remote.
	Network impair.Link
	// DeadReckoning is what the "game" algorithm runs; if zero, game.DeadReckoning().
	// Other algorithms ignore it.
	DeadReckoning deadreckon.PublisherConfig
	// Paper reckons as Murphy's paper does (the Table 1.1 runs): acceleration
	// integrated and velocity held for ever, the position lerped by T̂ itself.
	Paper bool
	// Seed drives the link's random draws.
	Seed uint64
	// ClockError is added to the true clock offset given to clock-synchronised modes
	// (pvb-ts and delayed), s.
	ClockError float64
	// Warmup is the time at the start that is not measured, s; if zero, DefaultWarmup;
	// Off (or any negative) means none.
	Warmup float64
	// Exact sends each published state to the remote as it is, in float64, instead of
	// through the wire encoding (package net/wire) with its quantization.
	Exact bool
	// UpdateBytes, if positive, is the size counted for each update, bytes. If zero, an
	// update counts the size of its wire encoding: a StateBatch datagram payload holding
	// it alone (defaultUpdateBytes for an update without articulations).
	UpdateBytes int
	// Snap overrides the remote actor's snap distance, m; if zero, deadreckon's default.
	Snap float64
	// Record keeps the per-frame displayed path and the update points in the result,
	// for plotting.
	Record bool
	// Recorded, when set, replaces the owner and the modelled link (Publish, Network,
	// Exact, ClockError) by a recorded match's link: the remote takes the recorded
	// updates at their recorded arrival times (drlab -replay).
	Recorded *RecordedLink
}

// Record is the per-frame detail of the measured part of a run, for plotting.
type Record struct {
	// Times are the frame times, s; Shown the displayed positions and Err their
	// distance from the truth, m, one per frame.
	Times []float64
	Shown []mgl64.Vec3
	Err   []float64
	// Updates are the true positions at which the owner published, m.
	Updates []mgl64.Vec3
}

// Result is what one run measured. Its JSON form is one line of drlab -json output.
// Only the measured frames (after the warm-up) count.
type Result struct {
	// Scenario names the path; Algo the algorithm (as ParseAlgo takes it).
	Scenario string `json:"scenario"`
	Algo     string `json:"algo"`
	// Publish is "rate" (fixed rate) or "threshold".
	Publish string `json:"publish"`
	// RateHz is the fixed publish rate, Hz; zero for threshold publishing.
	RateHz float64 `json:"rate_hz"`
	// PosThresholdM (m), RotThresholdDeg (degrees), MinIntervalS and HeartbeatS (s)
	// are the threshold publisher's settings; zero at a fixed rate.
	PosThresholdM   float64 `json:"pos_threshold_m,omitempty"`
	RotThresholdDeg float64 `json:"rot_threshold_deg,omitempty"`
	MinIntervalS    float64 `json:"min_interval_s,omitempty"`
	HeartbeatS      float64 `json:"heartbeat_s,omitempty"`
	// Acceleration reports whether acceleration was published.
	Acceleration bool `json:"acceleration"`
	// LatencyS and JitterS (s), Loss (0..1) with its mean burst length LossBurst
	// (packets) and Reorder (0..1) describe the link; ClockErrorS is the error of the
	// clock offset given to pvb-ts, delayed and game, s.
	LatencyS    float64 `json:"latency_s"`
	JitterS     float64 `json:"jitter_s"`
	Loss        float64 `json:"loss"`
	LossBurst   float64 `json:"loss_burst,omitempty"`
	Reorder     float64 `json:"reorder,omitempty"`
	ClockErrorS float64 `json:"clock_error_s"`
	// FPS is the frame rate, frames/s; DurationS the whole run and WarmupS its
	// unmeasured start, s; Seed the (first) seed of the link; Runs how many seeds the
	// figures combine (see simulateRuns); Frames the frames measured over all of them.
	FPS       float64 `json:"fps"`
	DurationS float64 `json:"duration_s"`
	WarmupS   float64 `json:"warmup_s"`
	Seed      uint64  `json:"seed"`
	Runs      int     `json:"runs"`
	Frames    int     `json:"frames"`

	// MeanErrM, P95ErrM and MaxErrM summarise |displayed − true| at the same instant,
	// m (P95 is the nearest-rank 95th percentile).
	MeanErrM float64 `json:"mean_err_m"`
	P95ErrM  float64 `json:"p95_err_m"`
	MaxErrM  float64 `json:"max_err_m"`
	// MeanErrSDM is the standard deviation of the per-seed mean errors over several
	// runs, m; zero for one.
	MeanErrSDM float64 `json:"mean_err_sd_m,omitempty"`
	// MeanHeadingDeg is the mean absolute heading error, degrees.
	MeanHeadingDeg float64 `json:"mean_heading_err_deg"`
	// MaxJumpM is the largest |displayed step − true step| between two frames, m. It
	// counts steady lag on a turn as well as pops.
	MaxJumpM float64 `json:"max_jump_m"`
	// MaxPopM is the largest per-frame pop, m: the displayed path's departure from its
	// own course beyond the truth's (see summary.MaxPop); steady lag does not count.
	MaxPopM float64 `json:"max_pop_m"`
	// MaxDVMPS is the largest per-frame change of displayed velocity beyond the
	// truth's own change, m/s.
	MaxDVMPS float64 `json:"max_dv_mps"`
	// RMSJerk is the RMS jerk of the displayed path, m/s³; TrueRMSJerk the truth's.
	RMSJerk     float64 `json:"rms_jerk"`
	TrueRMSJerk float64 `json:"true_rms_jerk"`
	// DelayS is the delayed algorithm's delay, s; MeanErrPastM and P95ErrPastM its
	// error against the truth one delay ago, m (delayed only).
	DelayS       float64  `json:"delay_s,omitempty"`
	MeanErrPastM *float64 `json:"mean_err_past_m,omitempty"`
	P95ErrPastM  *float64 `json:"p95_err_past_m,omitempty"`
	// MaxDepthM (m) and BelowGroundShare (0..1) measure the displayed position's depth
	// below the ground (terrain scenarios only); the True ones measure the truth's own,
	// which a three-point clamp can leave a little under curved ground.
	MaxDepthM            *float64 `json:"max_depth_m,omitempty"`
	BelowGroundShare     *float64 `json:"below_ground_share,omitempty"`
	TrueMaxDepthM        *float64 `json:"true_max_depth_m,omitempty"`
	TrueBelowGroundShare *float64 `json:"true_below_ground_share,omitempty"`
	// MaxUnderTruthM is how far the displayed position went below the true one, m
	// (terrain scenarios only): a display that drops before the truth falls.
	MaxUnderTruthM *float64 `json:"max_under_truth_m,omitempty"`

	// MaxOvershootM is the furthest the displayed tank went past the point where the
	// truth came to rest, measured along the truth's direction of travel as it
	// stopped, over every stop, m. Stops counts those stops (rests of 0.25 s or
	// more after motion; summed over runs).
	MaxOvershootM float64 `json:"max_overshoot_m"`
	Stops         int     `json:"stops"`
	// StartDelayP95S is the nearest-rank 95th percentile, over starts, of the time
	// from the truth leaving rest (faster than 0.2 m/s, after 0.25 s or more at rest)
	// until the displayed tank moves the same way faster than 0.2 m/s, s; over
	// several runs, of the starts of them all. Starts counts them.
	StartDelayP95S float64 `json:"start_delay_p95_s"`
	Starts         int     `json:"starts"`
	// MaxHeadingOvershootDeg is the furthest the displayed heading went past the
	// truth's where the truth's turn came to rest, signed along the turn, over every
	// turn that ended, degrees (a turn of 5° or more, faster than 5°/s, whose
	// heading then rests, slower than 1°/s, for 0.25 s or more). TurnStopDelayP95S
	// is the nearest-rank 95th percentile, over those turns, of the time from the
	// truth's turn coming to rest until the displayed heading last turned faster than
	// 1°/s during that rest, s; over several runs, of the turns of them all. Turns
	// counts them.
	MaxHeadingOvershootDeg float64 `json:"max_heading_overshoot_deg"`
	TurnStopDelayP95S      float64 `json:"turn_stop_delay_p95_s"`
	Turns                  int     `json:"turns"`
	// StalePerMin is how often the displayed tank was newly marked stale
	// (deadreckon.Actor.Stale) while its owner kept publishing, per minute.
	StalePerMin float64 `json:"stale_per_min"`
	// ReversalCount is how often the displayed path turned back against the truth's
	// direction of travel (moving with it, then against it, each faster than
	// 0.2 m/s, while the truth kept its direction within 45°), per minute.
	ReversalCount float64 `json:"reversal_count"`

	// UpdatesPerS and BytesPerS are what the owner sent, per second.
	UpdatesPerS float64 `json:"updates_per_s"`
	BytesPerS   float64 `json:"bytes_per_s"`
	// BytesPerUpdate is the mean size of a measured update, bytes.
	BytesPerUpdate float64 `json:"bytes_per_update"`
	// Exact reports that states travelled unquantized instead of wire-encoded.
	Exact bool `json:"exact"`
	// Sent counts updates put on the link over the whole run, Lost those it dropped,
	// Rejected those the remote actor refused (out of order or invalid), and
	// EncodeErrors states the wire encoder refused (never sent).
	Sent         int `json:"sent"`
	Lost         int `json:"lost"`
	Rejected     int `json:"rejected"`
	EncodeErrors int `json:"encode_errors"`

	// Record is the per-frame detail, when Setup.Record asked for it.
	Record *Record `json:"-"`

	// staleHeard counts the measured frames shown stale although an update had
	// arrived (taken or refused) within the actor's StaleAfter: a stale mark that is
	// not a true silence.
	staleHeard int
}

// errNoFrames is returned when the warm-up leaves no frame to measure.
var errNoFrames = errors.New("no frames to measure")

// Simulate plays one run and measures it. It is deterministic: the same setup gives
// the same result, bit for bit.
func Simulate(s Setup) (Result, error) {
	var sc scratch
	return sc.simulate(s)
}

// scratch holds the buffers one goroutine reuses from run to run.
type scratch struct {
	wire       wireCodec
	metrics    metrics
	truth      metrics
	player     playerMetrics
	turns      turnMetrics
	inbox      []Delivery
	delays     []float64 // start delays pooled over the runs of simulateRuns, s
	turnDelays []float64 // turn stop delays pooled over the runs of simulateRuns, s
}

// simulate plays one run: it sets the run up, steps it frame by frame, and sums it up.
func (sc *scratch) simulate(s Setup) (Result, error) {
	r, err := newSimRun(s)
	if err != nil {
		return Result{}, err
	}
	sc.metrics.Reset(r.dt, r.p.Ground)
	sc.truth.Reset(r.dt, r.p.Ground)
	sc.player.Reset(r.dt)
	sc.turns.Reset(r.dt)
	for i, truth := range r.p.Poses {
		r.frame(sc, truth, i)
	}
	return r.result(sc.metrics.summary(), sc.truth.summary(), sc.player.summary(), sc.turns.summary())
}

// simRun is one run in progress: its setup with defaults filled in, the two peers and
// the link between them, and the counts kept while it plays.
type simRun struct {
	s   Setup
	p   *Path
	pub PublishConfig
	dr  deadreckon.PublisherConfig
	net *Network
	own *owner
	// pathOwn is the owner of a path run (pathrun.go), instead of own.
	pathOwn *pathOwner
	actor   *deadreckon.Actor
	dt      float64 // frame interval, s
	warmup  float64 // time before measuring starts, s
	delay   float64 // how far a delayed remote shows the past, s
	rec     *Record

	sent, rejected, encodeErrs  int
	measuredSent, measuredBytes int
	encodeErr                   error   // the first refusal of the wire encoder
	heardAt                     float64 // arrival of the last update delivered, taken or refused
	staleAfter                  float64 // the remote actor's StaleAfter, s
	staleHeard                  int     // see Result.staleHeard

	sendTimes []float64 // a recorded link's publish times, and the next to count
	sendIdx   int
}

// newSimRun checks a setup, fills in its defaults and builds the owner, the link and
// the remote actor.
func newSimRun(s Setup) (*simRun, error) {
	p := s.Path
	if p == nil || len(p.Poses) < 2 {
		return nil, errors.New("simulate: path has fewer than 2 frames")
	}
	pub, err := s.Publish.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("simulate %s/%s: %w", p.Name, s.Algo.Name, err)
	}
	r := &simRun{s: s, p: p, pub: pub, dr: s.DeadReckoning, dt: p.FrameInterval, warmup: runWarmup(s.Warmup)}
	if r.dr == (deadreckon.PublisherConfig{}) {
		r.dr = game.DeadReckoning()
	}
	if err := r.dr.Validate(); err != nil {
		return nil, fmt.Errorf("simulate %s/%s: dead reckoning: %w", p.Name, s.Algo.Name, err)
	}
	if r.net, err = NewNetwork(s.Network, s.Seed); err != nil {
		return nil, fmt.Errorf("simulate %s/%s: %w", p.Name, s.Algo.Name, err)
	}
	if math.IsNaN(s.ClockError) || math.IsInf(s.ClockError, 0) {
		return nil, fmt.Errorf("simulate %s/%s: clock error %v is not finite", p.Name, s.Algo.Name, s.ClockError)
	}
	if s.UpdateBytes < 0 {
		return nil, fmt.Errorf("simulate %s/%s: update size %d bytes is negative", p.Name, s.Algo.Name, s.UpdateBytes)
	}
	r.buildPeers()
	if s.Recorded != nil {
		r.net, r.sendTimes = s.Recorded.network(), s.Recorded.sends()
	}
	if s.Record {
		r.rec = &Record{}
	}
	return r, nil
}

// runWarmup is the warm-up a run uses for Setup.Warmup w, s: zero means the default,
// and a negative or NaN one means none.
func runWarmup(w float64) float64 {
	switch {
	case w == 0:
		return DefaultWarmup
	case w < 0 || math.IsNaN(w):
		return 0
	}
	return w
}

// buildPeers makes the owner and the remote actor: the game's remote, clamp and
// publisher exactly for the "game" algorithm, the setup's algorithm otherwise.
func (r *simRun) buildPeers() {
	s, p := r.s, r.p
	cfg := deadreckon.Config{
		Algorithm:         s.Algo.Algorithm,
		UpdateInterval:    r.pub.interval(),
		Heartbeat:         r.pub.Heartbeat,
		CompensateLatency: s.Algo.CompensateLatency,
		SnapDistance:      s.Snap,
	}
	if s.Paper {
		paperReckon(&cfg)
	}
	if p.Ground != nil {
		cfg.Clamp = groundClamp(p.Clamp, p.Footprint)
	}
	if s.Algo.Game {
		r.dr.Reckon.Collide = p.Collide
		cfg = r.dr.Reckon
		r.own = &owner{pub: deadreckon.NewPublisher(r.dr, s.Seed)}
	} else if r.usesPath() {
		// The game's dead reckoning, publishing by path where the truth follows a route.
		r.dr.Reckon.Algorithm = deadreckon.Path
		r.dr.Reckon.Collide = p.Collide
		cfg = r.dr.Reckon
		r.pathOwn = newPathOwner(r.dr, s.Seed)
	} else {
		r.own = newOwner(r.pub, s.Algo, s.Seed, s.Paper)
	}
	if s.Recorded != nil {
		cfg = s.Recorded.reckon(s.Algo, p.Ground != nil)
	}
	cfg.Collide = p.Collide
	if !s.Exact || s.Recorded != nil {
		// As the game's remote does: a state at a bound comes back from the wire's
		// rounding up to half a step past it (a tank turning at 3 rad/s arrives at
		// up to 3.014 rad/s), and a remote that refused it reckoned on from an older
		// one. A recorded link's states came over the real wire.
		cfg.Limits = wire.WidenLimits(cfg.Limits)
	}
	r.actor = deadreckon.NewActor(cfg)
	r.staleAfter = r.actor.Config().StaleAfter()
	if cfg.CompensateLatency || cfg.Algorithm == deadreckon.Delayed {
		r.actor.SetClockOffset(ownerClockOffset + s.ClockError)
	}
	if cfg.Algorithm == deadreckon.Delayed {
		r.delay = r.actor.Config().Delay
	}
}

// frame plays one frame: the owner publishes, the remote takes what arrived, reckons
// and clamps, and the frame is measured.
func (r *simRun) frame(sc *scratch, truth Pose, i int) {
	t := truth.Time
	measured := t >= r.warmup-1e-9
	if r.s.Recorded != nil {
		r.recordedFrame(t, measured)
	} else if r.pathOwn != nil {
		r.pathPublish(sc, truth, i, measured)
	} else {
		r.publish(sc, truth, measured)
	}
	r.receive(sc, t)
	if !r.actor.HasState() {
		return
	}
	r.actor.Advance(t)
	if r.p.Ground != nil {
		r.actor.ClampTo(r.p.Ground, clampObserver(truth.Position))
	}
	r.measure(sc, truth, measured)
}

// publish is the owner's side of a frame: render, decide, and put an update on the
// link, wire-encoded unless the setup sends states exact.
func (r *simRun) publish(sc *scratch, truth Pose, measured bool) {
	t := truth.Time
	st, brk, ok := r.own.update(truth, t+ownerClockOffset)
	if !ok {
		return
	}
	size := r.s.UpdateBytes
	if !r.s.Exact {
		var n int
		var err error
		if st, n, err = sc.wire.roundTrip(st); err != nil {
			r.encodeErrs++ // the encoder refuses the state: nothing is sent
			if r.encodeErr == nil {
				r.encodeErr = err
			}
			return
		}
		if size == 0 {
			size = n
		}
	} else if size == 0 {
		size = defaultUpdateBytes
	}
	r.sent++
	if measured {
		r.measuredSent++
		r.measuredBytes += size
	}
	r.net.Send(st, brk, t)
	if r.rec != nil && measured {
		r.rec.Updates = append(r.rec.Updates, truth.Position)
	}
}

// receive is the remote's side of a frame: it takes what arrived since the last frame,
// each at its arrival time.
func (r *simRun) receive(sc *scratch, t float64) {
	sc.inbox = r.net.Deliver(sc.inbox[:0], t)
	for _, d := range sc.inbox {
		r.heardAt = d.Arrival
		if d.IsProgress || d.Route != nil {
			if err := r.pathReceive(d); err != nil {
				r.rejected++
			}
			continue
		}
		apply := r.actor.Receive
		if d.Break {
			apply = r.actor.Break
		}
		if err := apply(d.State, d.Arrival); err != nil {
			r.rejected++
		}
	}
}

// measure compares what the remote shows with the truth; before the warm-up ends it
// only tracks the motion, so the first measured frame has a history.
func (r *simRun) measure(sc *scratch, truth Pose, measured bool) {
	t := truth.Time
	shown := r.actor.Reckoned()
	if r.rec != nil && measured {
		r.rec.Times = append(r.rec.Times, t)
		r.rec.Shown = append(r.rec.Shown, shown.Position)
		r.rec.Err = append(r.rec.Err, shown.Position.Sub(truth.Position).Len())
	}
	if !measured {
		sc.metrics.Track(truth.Position, shown.Position)
		sc.truth.Track(truth.Position, truth.Position)
		return
	}
	past := truth.Position
	if r.delay > 0 {
		past = r.p.positionAt(t - r.delay)
	}
	sc.metrics.Add(truth, shown, past)
	stale := r.actor.Stale(t)
	if stale && t-r.heardAt <= r.staleAfter {
		r.staleHeard++
	}
	sc.player.Add(t, truth.Position, shown.Position, stale)
	sc.turns.Add(t, geom.Yaw(truth.Orientation), geom.Yaw(shown.Orientation))
	sc.truth.Add(truth, deadreckon.State{Position: truth.Position, Orientation: truth.Orientation}, truth.Position)
}

// result sums the run up from the metrics of what was shown and of the truth itself.
func (r *simRun) result(sum, trueSum summary, ps playerSummary, ts turnSummary) (Result, error) {
	s, p := r.s, r.p
	if sum.Frames == 0 && r.encodeErr != nil && r.sent == 0 {
		return Result{}, fmt.Errorf("simulate %s/%s: no update could be wire-encoded (send them exact instead): %w", p.Name, s.Algo.Name, r.encodeErr)
	}
	if sum.Frames == 0 {
		return Result{}, fmt.Errorf("simulate %s/%s: %w (duration %.3g s, warm-up %.3g s)", p.Name, s.Algo.Name, errNoFrames, p.Duration(), r.warmup)
	}
	span := float64(sum.Frames) * r.dt
	res := Result{
		Scenario:               p.Name,
		Algo:                   s.Algo.Name,
		Publish:                "rate",
		RateHz:                 r.pub.Rate,
		Acceleration:           !r.pub.NoAcceleration,
		LatencyS:               s.Network.Latency.Seconds(),
		JitterS:                s.Network.Jitter.Seconds(),
		Loss:                   s.Network.Loss,
		LossBurst:              s.Network.LossBurst,
		Reorder:                s.Network.Reorder,
		ClockErrorS:            s.ClockError,
		FPS:                    1 / r.dt,
		DurationS:              p.Duration(),
		WarmupS:                r.warmup,
		Seed:                   s.Seed,
		Runs:                   1,
		Frames:                 sum.Frames,
		MeanErrM:               sum.MeanErr,
		P95ErrM:                sum.P95Err,
		MaxErrM:                sum.MaxErr,
		MeanHeadingDeg:         sum.MeanHeadingErr,
		MaxJumpM:               sum.MaxJump,
		MaxPopM:                sum.MaxPop,
		MaxDVMPS:               sum.MaxDV,
		RMSJerk:                sum.RMSJerk,
		TrueRMSJerk:            trueSum.RMSJerk,
		UpdatesPerS:            float64(r.measuredSent) / span,
		BytesPerS:              float64(r.measuredBytes) / span,
		Exact:                  s.Exact,
		EncodeErrors:           r.encodeErrs,
		Sent:                   r.sent,
		Lost:                   r.net.Lost(),
		Rejected:               r.rejected,
		Record:                 r.rec,
		MaxOvershootM:          ps.MaxOvershoot,
		Stops:                  ps.Stops,
		StartDelayP95S:         ps.StartDelayP95,
		Starts:                 ps.Starts,
		StalePerMin:            ps.StalePerMin,
		ReversalCount:          ps.ReversalsPerMin,
		MaxHeadingOvershootDeg: ts.MaxOvershoot,
		TurnStopDelayP95S:      ts.StopDelayP95,
		Turns:                  ts.Turns,
		staleHeard:             r.staleHeard,
	}
	if r.measuredSent > 0 {
		res.BytesPerUpdate = float64(r.measuredBytes) / float64(r.measuredSent)
	}
	r.describePublisher(&res)
	if r.delay > 0 {
		res.DelayS = r.delay
		res.MeanErrPastM, res.P95ErrPastM = &sum.MeanPastErr, &sum.P95PastErr
	}
	if p.Ground != nil {
		res.MaxDepthM, res.BelowGroundShare = &sum.MaxDepth, &sum.BelowShare
		res.TrueMaxDepthM, res.TrueBelowGroundShare = &trueSum.MaxDepth, &trueSum.BelowShare
		res.MaxUnderTruthM = &sum.MaxUnderTruth
	}
	return res, nil
}

// describePublisher fills in how the owner published: at a fixed rate, or on
// thresholds (always, for the game's publisher).
func (r *simRun) describePublisher(res *Result) {
	pub := r.pub
	if r.s.Algo.Game || r.usesPath() {
		pub.Rate = 0
		pub.PosThreshold, pub.RotThreshold = r.dr.PositionThreshold, r.dr.OrientationThreshold
		pub.MinInterval, pub.Heartbeat = r.dr.MinInterval, r.dr.Heartbeat
		res.RateHz, res.Acceleration = 0, !r.dr.NoAcceleration
	}
	if pub.Rate == 0 {
		res.Publish = "threshold"
		res.PosThresholdM = pub.PosThreshold
		res.RotThresholdDeg = mgl64.RadToDeg(pub.RotThreshold)
		res.MinIntervalS = pub.MinInterval
		res.HeartbeatS = pub.Heartbeat
	}
}

// positionAt returns the true position at time t, interpolating between frames and
// holding the first and last frames outside the path.
func (p *Path) positionAt(t float64) mgl64.Vec3 {
	u := t / p.FrameInterval
	if u <= 0 {
		return p.Poses[0].Position
	}
	i := int(math.Floor(u))
	if i >= len(p.Poses)-1 {
		return p.Poses[len(p.Poses)-1].Position
	}
	f := u - float64(i)
	a, b := p.Poses[i].Position, p.Poses[i+1].Position
	return a.Add(b.Sub(a).Mul(f))
}

// groundClamp is the remote clamp of terrain scenarios, with the path's footprint (the
// default tank's when it has none): a vehicle that can fall off a ledge is only ever
// lifted (ClampUp, also for ClampNone); one that never leaves the ground is kept on
// it (ClampAlways).
func groundClamp(mode deadreckon.ClampMode, footprint [3]mgl64.Vec3) deadreckon.Clamp {
	if mode == deadreckon.ClampNone {
		mode = deadreckon.ClampUp
	}
	if footprint == ([3]mgl64.Vec3{}) {
		footprint = tank.Default().Footprint()
	}
	return deadreckon.Clamp{Mode: mode, Footprint: footprint}
}

// clampObserver is where the lab's viewer stands when clamping: right at the actor,
// so the full three-ray clamp runs every frame.
func clampObserver(actor mgl64.Vec3) mgl64.Vec3 { return actor }
