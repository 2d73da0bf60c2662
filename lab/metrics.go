package lab

import (
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
)

// belowGroundTolerance is how far under the ground a displayed position must be to
// count as below it, m. It keeps rounding at the surface from counting.
const belowGroundTolerance = 0.01

// metrics accumulates how well a displayed path follows the true one, frame by frame.
// Frames come at a fixed interval. The zero value is not ready; use newMetrics. It is
// not safe for concurrent use.
type metrics struct {
	dt     float64
	ground deadreckon.Ground

	errs      []float64 // position error of every measured frame, m
	sumErr    float64
	maxErr    float64
	sumHead   float64 // heading error, rad
	maxJump   float64
	maxPop    float64 // m
	maxDV     float64 // m/s
	maxUnder  float64 // largest depth of the display below the truth, m
	sumJerk2  float64 // sum of squared jerk magnitudes, (m/s³)²
	nJerk     int
	maxDepth  float64
	nBelow    int
	pastErrs  []float64 // error against the truth one delay ago, m
	sumPast   float64
	prevShown [3]mgl64.Vec3 // displayed positions of the last three frames, newest first
	prevTrue  [2]mgl64.Vec3 // true positions of the last two frames, newest first
	nPrev     int
}

// newMetrics returns a ready accumulator for frames dt seconds apart. When ground is
// not nil, depth below it is measured too.
func newMetrics(dt float64, ground deadreckon.Ground) *metrics {
	return &metrics{dt: dt, ground: ground}
}

// Reset clears the accumulator for a new run, keeping its buffers.
func (m *metrics) Reset(dt float64, ground deadreckon.Ground) {
	*m = metrics{dt: dt, ground: ground, errs: m.errs[:0], pastErrs: m.pastErrs[:0]}
}

// Track feeds a frame that is not measured (a warm-up frame), so that the first
// measured frame's jump and jerk have the frames before it.
func (m *metrics) Track(truePos, shown mgl64.Vec3) {
	m.push(truePos, shown)
}

// Add measures one frame: the true pose, the displayed pose and, for a delayed view,
// the true position one delay ago (pass the present truth when there is no delay).
func (m *metrics) Add(truth Pose, shown deadreckon.State, pastTrue mgl64.Vec3) {
	e := shown.Position.Sub(truth.Position).Len()
	m.errs = append(m.errs, e)
	m.sumErr += e
	m.maxErr = math.Max(m.maxErr, e)
	m.sumHead += math.Abs(headingDiff(geom.Yaw(shown.Orientation), geom.Yaw(truth.Orientation)))
	pe := shown.Position.Sub(pastTrue).Len()
	m.pastErrs = append(m.pastErrs, pe)
	m.sumPast += pe
	if m.nPrev >= 1 {
		jump := shown.Position.Sub(m.prevShown[0]).Sub(truth.Position.Sub(m.prevTrue[0])).Len()
		m.maxJump = math.Max(m.maxJump, jump)
	}
	if m.nPrev >= 2 {
		// Second differences: how far each path left the course its last step set.
		ds := shown.Position.Sub(m.prevShown[0].Mul(2)).Add(m.prevShown[1])
		dt := truth.Position.Sub(m.prevTrue[0].Mul(2)).Add(m.prevTrue[1])
		// A pop is a step off the displayed path's own course beyond what the
		// truth's turning and braking account for. Lag shows the truth's own course
		// late, so its departures are the truth's: it does not count.
		m.maxPop = math.Max(m.maxPop, ds.Len()-dt.Len())
		m.maxDV = math.Max(m.maxDV, ds.Sub(dt).Len()/m.dt)
	}
	if d := truth.Position.Y() - shown.Position.Y(); m.ground != nil && d > m.maxUnder {
		m.maxUnder = d
	}
	if m.nPrev >= 3 {
		// Third backward difference.
		p := m.prevShown
		j := shown.Position.Sub(p[0].Mul(3)).Add(p[1].Mul(3)).Sub(p[2]).Mul(1 / (m.dt * m.dt * m.dt))
		m.sumJerk2 += j.Dot(j)
		m.nJerk++
	}
	if m.ground != nil {
		if h, ok := m.ground.HeightAt(shown.Position.X(), shown.Position.Z()); ok {
			d := h - shown.Position.Y()
			m.maxDepth = math.Max(m.maxDepth, d)
			if d > belowGroundTolerance {
				m.nBelow++
			}
		}
	}
	m.push(truth.Position, shown.Position)
}

func (m *metrics) push(truePos, shown mgl64.Vec3) {
	m.prevShown[2], m.prevShown[1], m.prevShown[0] = m.prevShown[1], m.prevShown[0], shown
	m.prevTrue[1], m.prevTrue[0] = m.prevTrue[0], truePos
	if m.nPrev < 3 {
		m.nPrev++
	}
}

// summary is what metrics measured over a run.
type summary struct {
	// Frames is how many frames were measured.
	Frames int
	// MeanErr, P95Err and MaxErr summarise the distance between the displayed and the
	// true position at the same instant, m. P95Err is the nearest-rank 95th percentile.
	MeanErr, P95Err, MaxErr float64
	// MeanHeadingErr is the mean absolute heading difference, degrees.
	MeanHeadingErr float64
	// MaxJump is the largest |displayed step − true step| between consecutive frames, m.
	// A snap shows as the snap distance; a stall as the distance the truth moved.
	MaxJump float64
	// MaxPop is the largest per-frame pop, m: the length of the displayed path's
	// second difference (its step's departure from the step before) less the
	// truth's. A snap or a velocity step shows; steady lag does not.
	MaxPop float64
	// MaxDV is the largest per-frame change of the displayed velocity beyond the
	// truth's own change, m/s: |Δv_shown − Δv_true| over one frame.
	MaxDV float64
	// MaxUnderTruth is how far the displayed position went below the true one, m
	// (ground scenarios only): a display that drops before the truth falls.
	MaxUnderTruth float64
	// RMSJerk is the root mean square of the displayed path's jerk (third difference
	// over the frame interval cubed), m/s³.
	RMSJerk float64
	// MeanPastErr and P95PastErr are the error against the truth one delay ago, m; with
	// no delay they equal MeanErr and P95Err.
	MeanPastErr, P95PastErr float64
	// MaxDepth is the largest depth of the displayed position below the ground, m
	// (zero when it never went below); BelowShare is the share, 0..1, of frames more
	// than belowGroundTolerance below it. Both are zero without a ground.
	MaxDepth, BelowShare float64
}

// summary returns the figures measured so far. It sorts the stored errors in place,
// so call it once, after the last Add.
func (m *metrics) summary() summary {
	n := len(m.errs)
	if n == 0 {
		return summary{}
	}
	s := summary{
		Frames:         n,
		MeanErr:        m.sumErr / float64(n),
		P95Err:         percentile(m.errs, 0.95),
		MaxErr:         m.maxErr,
		MeanHeadingErr: mgl64.RadToDeg(m.sumHead / float64(n)),
		MaxJump:        m.maxJump,
		MaxPop:         max(0, m.maxPop),
		MaxDV:          m.maxDV,
		MaxUnderTruth:  m.maxUnder,
		MeanPastErr:    m.sumPast / float64(n),
		P95PastErr:     percentile(m.pastErrs, 0.95),
	}
	if m.nJerk > 0 {
		s.RMSJerk = math.Sqrt(m.sumJerk2 / float64(m.nJerk))
	}
	if m.ground != nil {
		s.MaxDepth = m.maxDepth
		s.BelowShare = float64(m.nBelow) / float64(n)
	}
	return s
}

// percentile returns the nearest-rank q-quantile of v, sorting v in place.
func percentile(v []float64, q float64) float64 {
	slices.Sort(v)
	i := int(math.Ceil(q*float64(len(v)))) - 1
	return v[max(0, min(i, len(v)-1))]
}

// headingDiff returns a − b wrapped into [−π, π], rad.
func headingDiff(a, b float64) float64 {
	return math.Remainder(a-b, 2*math.Pi)
}
