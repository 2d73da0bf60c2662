package clock

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/treadline/treadline/internal/geom"
)

// Defaults for Config fields left zero.
const (
	// DefaultWindow is how many recent samples the filter keeps.
	DefaultWindow = 16
	// DefaultMaxRTT is the longest round trip, seconds, a sample may have.
	DefaultMaxRTT = 3.0
	// DefaultSlewRate is how fast the reported offset follows the estimate, seconds
	// of offset per second of local time: 5 ms per second. Below 1, so converted
	// times never run backwards.
	DefaultSlewRate = 0.005
	// DefaultStepThreshold is the gap, seconds, between the reported offset and the
	// estimate beyond which the offset steps at once instead of slewing.
	DefaultStepThreshold = 0.5
	// DefaultWarmup is how many first samples set the offset directly, before the
	// filter has seen enough round trips to trust and slewing starts.
	DefaultWarmup = 4
)

// Config tunes a Sync. The zero value means the defaults.
type Config struct {
	// Window is how many recent samples are kept; the one with the smallest round
	// trip gives the offset estimate. A longer window finds a better sample but
	// follows clock drift more slowly (it may hold a sample Window sync intervals
	// old). If zero, defaults to DefaultWindow.
	Window int
	// MaxRTT rejects samples with a longer round trip, seconds. If zero, defaults
	// to DefaultMaxRTT.
	MaxRTT float64
	// SlewRate bounds how fast the reported offset moves, seconds per second of
	// local time, in (0, 1). If zero, defaults to DefaultSlewRate.
	SlewRate float64
	// StepThreshold is the gap in seconds past which the offset steps to the
	// estimate instead of slewing. If zero, defaults to DefaultStepThreshold.
	StepThreshold float64
	// Warmup is how many first accepted samples set the offset directly (the
	// estimate improves quickly while the window fills; nobody relies on a smooth
	// offset yet). 1 means only the first. If zero, defaults to DefaultWarmup.
	Warmup int
}

// ErrBadSample reports a sample that is not finite, runs backwards in time, or has a
// round trip outside [0, MaxRTT]. Such a sample is dropped and counted.
var ErrBadSample = errors.New("clock: bad sample")

// Sample is one request and answer, each time in seconds on its own clock.
type Sample struct {
	// LocalSend is the local time the request left (t0).
	LocalSend float64
	// RemoteReceive is the remote time the request arrived (T1).
	RemoteReceive float64
	// RemoteSend is the remote time the answer left (T2 ≥ T1).
	RemoteSend float64
	// LocalReceive is the local time the answer arrived (t3 ≥ t0).
	LocalReceive float64
}

// RTT returns the sample's round trip in seconds without the remote's own delay:
// (t3 − t0) − (T2 − T1).
func (s Sample) RTT() float64 {
	return (s.LocalReceive - s.LocalSend) - (s.RemoteSend - s.RemoteReceive)
}

// Offset returns the sample's estimate of remote minus local time in seconds:
// ((T1 − t0) + (T2 − t3)) / 2. It is off by at most RTT/2.
func (s Sample) Offset() float64 {
	return ((s.RemoteReceive - s.LocalSend) + (s.RemoteSend - s.LocalReceive)) / 2
}

// Sync filters clock samples into a smooth offset. It is safe for concurrent use.
type Sync struct {
	mu       sync.Mutex
	cfg      Config
	window   []Sample // ring buffer
	next     int      // where the next sample goes
	n        int      // samples held
	scratch  []float64
	best     Sample // sample with the smallest RTT in the window
	offset   float64
	medRTT   float64
	at       float64 // local time the offset was last advanced to
	synced   bool
	accepted uint64
	rejected uint64
}

// New returns a Sync with no samples yet. Nonsense config values (negative, or a
// SlewRate of 1 or more) are replaced by the defaults.
func New(cfg Config) *Sync {
	if cfg.Window <= 0 {
		cfg.Window = DefaultWindow
	}
	if !(cfg.MaxRTT > 0) || math.IsInf(cfg.MaxRTT, 0) {
		cfg.MaxRTT = DefaultMaxRTT
	}
	if !(cfg.SlewRate > 0 && cfg.SlewRate < 1) {
		cfg.SlewRate = DefaultSlewRate
	}
	if !(cfg.StepThreshold > 0) || math.IsInf(cfg.StepThreshold, 0) {
		cfg.StepThreshold = DefaultStepThreshold
	}
	if cfg.Warmup <= 0 {
		cfg.Warmup = DefaultWarmup
	}
	return &Sync{
		cfg:     cfg,
		window:  make([]Sample, cfg.Window),
		scratch: make([]float64, cfg.Window),
	}
}

// check validates a sample against cfg.
func (c *Config) check(s Sample) error {
	if !geom.Finite(s.LocalSend) || !geom.Finite(s.RemoteReceive) || !geom.Finite(s.RemoteSend) || !geom.Finite(s.LocalReceive) {
		return fmt.Errorf("clock: sample %+v not finite: %w", s, ErrBadSample)
	}
	if s.LocalReceive < s.LocalSend || s.RemoteSend < s.RemoteReceive {
		return fmt.Errorf("clock: sample %+v runs backwards: %w", s, ErrBadSample)
	}
	if rtt := s.RTT(); rtt < 0 || rtt > c.MaxRTT {
		return fmt.Errorf("clock: round trip %.6f s outside [0, %g]: %w", rtt, c.MaxRTT, ErrBadSample)
	}
	return nil
}

// Add records a sample and advances the offset to the sample's LocalReceive (during
// warm-up, sets it to the estimate). A bad sample is dropped, counted, and reported
// with an error wrapping ErrBadSample; the state is then unchanged.
func (s *Sync) Add(smp Sample) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.cfg.check(smp); err != nil {
		s.rejected++
		return err
	}
	s.accepted++
	s.window[s.next] = smp
	s.next = (s.next + 1) % len(s.window)
	s.n = min(s.n+1, len(s.window))

	held := s.scratch[:0]
	s.best = s.window[0]
	for i := 0; i < s.n; i++ {
		w := s.window[i]
		if w.RTT() < s.best.RTT() {
			s.best = w
		}
		held = append(held, w.RTT())
	}
	slices.Sort(held)
	if s.n%2 == 1 {
		s.medRTT = held[s.n/2]
	} else {
		s.medRTT = (held[s.n/2-1] + held[s.n/2]) / 2
	}

	if s.accepted <= uint64(s.cfg.Warmup) {
		s.synced = true
		s.offset = s.best.Offset()
		s.at = max(s.at, smp.LocalReceive)
		return nil
	}
	s.advance(smp.LocalReceive)
	return nil
}

// Advance moves the reported offset toward the estimate for local time now, at no
// more than SlewRate seconds per second. Calls with an earlier now than before
// change nothing.
func (s *Sync) Advance(now float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.synced && geom.Finite(now) {
		s.advance(now)
	}
}

func (s *Sync) advance(now float64) {
	target := s.best.Offset()
	gap := target - s.offset
	if math.Abs(gap) > s.cfg.StepThreshold {
		s.offset = target
		s.at = max(s.at, now)
		return
	}
	dt := now - s.at
	if dt <= 0 {
		return
	}
	s.at = now
	step := s.cfg.SlewRate * dt
	if math.Abs(gap) <= step {
		s.offset = target
	} else {
		s.offset += math.Copysign(step, gap)
	}
}

// Offset returns the smoothed offset, remote minus local time, in seconds; zero
// before the first sample.
func (s *Sync) Offset() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.offset
}

// Estimate returns the offset of the best sample in the window, which Offset follows,
// and its error bound (half that sample's round trip), in seconds.
func (s *Sync) Estimate() (offset, bound float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.best.Offset(), s.best.RTT() / 2
}

// Error returns how far, at most, the smoothed offset may be from the true one in
// seconds, as the filter estimates it: the best sample's error bound (half its round
// trip) plus the gap the offset still has to slew to reach that sample's estimate.
// It is zero before the first sample. This, not the offset itself, is the figure
// that says how well two clocks agree.
func (s *Sync) Error() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.synced {
		return 0
	}
	return s.best.RTT()/2 + math.Abs(s.offset-s.best.Offset())
}

// RTT returns the median round trip of the window in seconds, the figure to show a
// player; zero before the first sample.
func (s *Sync) RTT() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.medRTT
}

// MinRTT returns the smallest round trip in the window in seconds.
func (s *Sync) MinRTT() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.best.RTT()
}

// Synced reports whether at least one sample has been accepted.
func (s *Sync) Synced() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.synced
}

// Counts returns how many samples were accepted and rejected.
func (s *Sync) Counts() (accepted, rejected uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.accepted, s.rejected
}

// ToLocal converts a remote time to local time, seconds: remote − Offset().
func (s *Sync) ToLocal(remote float64) float64 { return remote - s.Offset() }

// ToRemote converts a local time to remote time, seconds: local + Offset().
func (s *Sync) ToRemote(local float64) float64 { return local + s.Offset() }
