package lab

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

// errTrace is wrapped by every error about the content of a trace file, so callers
// can tell bad input from a failure to read it.
var errTrace = errors.New("bad trace")

// Trace limits.
const (
	// maxTraceRows is the most samples a trace may hold.
	maxTraceRows = 10_000_000
	// MaxPathFrames is the most frames a trace is resampled to.
	MaxPathFrames = 10_000_000
	// MaxTraceCoordinate is the largest coordinate magnitude a trace may hold, m.
	MaxTraceCoordinate = 1e7
	// minHeadingStep is the least horizontal movement between samples that sets the
	// heading of a position-only trace, m.
	minHeadingStep = 1e-4
)

// Trace is a recorded trajectory: samples at any spacing, in time order.
type Trace struct {
	// Samples holds the recorded poses, strictly increasing in Time. For a trace
	// without orientation columns the orientation faces the direction of travel.
	Samples []Pose
	// HasOrientation reports whether the file carried orientation columns.
	HasOrientation bool
}

// readTraceFile reads a CSV trace file; see ReadTrace for the format.
func readTraceFile(name string) (*Trace, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("read trace: %w", err)
	}
	defer f.Close()
	tr, err := ReadTrace(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return tr, nil
}

// ReadTrace reads a trajectory in CSV form: one sample per row, either t,x,y,z or
// t,x,y,z,qw,qx,qy,qz (seconds; meters; world frame, Y up; a unit quaternion, which is
// normalised). Fields may have spaces around them; blank rows and rows starting with #
// are skipped; the first row may be a header. Times must strictly increase and every
// row must have the same number of fields. An error names the offending line and wraps
// errTrace.
func ReadTrace(r io.Reader) (*Trace, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	tr := &Trace{}
	rows := traceRows{tr: tr}
	for sc.Scan() {
		rows.line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if err := rows.add(strings.Split(text, ",")); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read trace: line %d: %w", rows.line+1, err)
	}
	if len(tr.Samples) < 2 {
		return nil, fmt.Errorf("%w: %d samples, need at least 2", errTrace, len(tr.Samples))
	}
	if !tr.HasOrientation {
		faceTravel(tr.Samples)
	}
	return tr, nil
}

// traceRows reads the rows of a trace into tr, one at a time.
type traceRows struct {
	tr                 *Trace
	cols               int  // fields per row, once the first data row set it
	line               int  // the current line, from 1
	sawData, sawHeader bool // a data row, a header row has been read
	fields             [8]float64
}

// add reads one non-blank row split into its fields: a header (only before the first
// data row) is skipped, and a data row is checked and appended as a sample.
func (r *traceRows) add(parts []string) error {
	if !r.sawData && !r.sawHeader && !looksNumeric(parts[0]) {
		r.sawHeader = true
		return nil
	}
	if err := r.checkShape(len(parts)); err != nil {
		return err
	}
	if err := r.parseFields(parts); err != nil {
		return err
	}
	r.sawData = true
	s, err := r.pose()
	if err != nil {
		return err
	}
	samples := r.tr.Samples
	if n := len(samples); n > 0 && !(s.Time > samples[n-1].Time) {
		return fmt.Errorf("%w: line %d: time %g does not follow %g", errTrace, r.line, s.Time, samples[n-1].Time)
	}
	if len(samples) >= maxTraceRows {
		return fmt.Errorf("%w: line %d: more than %d samples", errTrace, r.line, maxTraceRows)
	}
	r.tr.Samples = append(samples, s)
	return nil
}

// checkShape checks a data row's field count: 4 or 8, and the same on every row. The
// first data row decides whether the trace has orientations.
func (r *traceRows) checkShape(n int) error {
	if n != 4 && n != 8 {
		return fmt.Errorf("%w: line %d: %d fields, want 4 (t,x,y,z) or 8 (t,x,y,z,qw,qx,qy,qz)", errTrace, r.line, n)
	}
	if r.cols == 0 {
		r.cols = n
		r.tr.HasOrientation = n == 8
	} else if n != r.cols {
		return fmt.Errorf("%w: line %d: %d fields, but earlier rows have %d", errTrace, r.line, n, r.cols)
	}
	return nil
}

// parseFields parses a data row's fields, each a finite number, into r.fields.
func (r *traceRows) parseFields(parts []string) error {
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return fmt.Errorf("%w: line %d: field %d %q is not a number", errTrace, r.line, i+1, strings.TrimSpace(p))
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: line %d: field %d is %v", errTrace, r.line, i+1, v)
		}
		r.fields[i] = v
	}
	return nil
}

// pose is the sample the parsed fields describe: coordinates within
// MaxTraceCoordinate, and the quaternion, when there is one, normalised.
func (r *traceRows) pose() (Pose, error) {
	f := &r.fields
	s := Pose{Time: f[0], Position: mgl64.Vec3{f[1], f[2], f[3]}, Orientation: mgl64.QuatIdent()}
	for i := 1; i <= 3; i++ {
		if math.Abs(f[i]) > MaxTraceCoordinate {
			return Pose{}, fmt.Errorf("%w: line %d: coordinate %g beyond ±%g m", errTrace, r.line, f[i], MaxTraceCoordinate)
		}
	}
	if r.cols == 8 {
		q := mgl64.Quat{W: f[4], V: mgl64.Vec3{f[5], f[6], f[7]}}
		l := q.Len()
		if l < 1e-6 || l > 1e6 {
			return Pose{}, fmt.Errorf("%w: line %d: quaternion of length %g cannot be normalised", errTrace, r.line, l)
		}
		s.Orientation = q.Scale(1 / l)
	}
	return s, nil
}

// looksNumeric reports whether s parses as a number, which tells a data row from a
// header row.
func looksNumeric(s string) bool {
	_, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return err == nil
}

// faceTravel turns each sample to face its horizontal direction of travel, keeping the
// last heading while the trace stands still.
func faceTravel(samples []Pose) {
	psi, found := 0.0, false
	// The first sample takes the heading of the first movement.
	for i := 1; i < len(samples) && !found; i++ {
		d := samples[i].Position.Sub(samples[0].Position)
		if math.Hypot(d.X(), d.Z()) > minHeadingStep {
			psi, found = geom.Heading(d), true
		}
	}
	for i := range samples {
		if i+1 < len(samples) {
			d := samples[i+1].Position.Sub(samples[i].Position)
			if math.Hypot(d.X(), d.Z()) > minHeadingStep {
				psi = geom.Heading(d)
			}
		}
		samples[i].Orientation = geom.YawQuat(psi)
	}
}

// Path resamples the trace at fps frames per second, interpolating positions with a
// Catmull–Rom cubic (a piecewise-linear path would give the publisher an acceleration
// spike at every sample) and orientations along the shorter arc. Frame times start at zero at the first
// sample. If duration is positive and shorter than the trace, the path stops there.
func (tr *Trace) Path(name string, fps, duration float64) (*Path, error) {
	if !(fps > 0) || math.IsInf(fps, 0) {
		return nil, fmt.Errorf("resample trace: frame rate %v is not positive", fps)
	}
	t0 := tr.Samples[0].Time
	span := tr.Samples[len(tr.Samples)-1].Time - t0
	if duration > 0 && duration < span {
		span = duration
	}
	if span*fps > MaxPathFrames {
		return nil, fmt.Errorf("resample trace: %g s at %g fps is more than %d frames", span, fps, MaxPathFrames)
	}
	// Frames cover [0, span], the last sample included.
	n := int(math.Floor(span*fps+1e-9)) + 1
	p := &Path{Name: name, FrameInterval: 1 / fps, Poses: make([]Pose, n)}
	j := 0
	for i := range p.Poses {
		t := float64(i) / fps
		abs := t0 + t
		for j+2 < len(tr.Samples) && tr.Samples[j+1].Time <= abs {
			j++
		}
		a, b := tr.Samples[j], tr.Samples[j+1]
		h := b.Time - a.Time
		u := mgl64.Clamp((abs-a.Time)/h, 0, 1)
		ma, mb := tr.tangent(j), tr.tangent(j+1)
		// Cubic Hermite basis.
		u2, u3 := u*u, u*u*u
		h00, h10, h01, h11 := 2*u3-3*u2+1, u3-2*u2+u, -2*u3+3*u2, u3-u2
		p.Poses[i] = Pose{
			Time:        t,
			Position:    a.Position.Mul(h00).Add(ma.Mul(h10 * h)).Add(b.Position.Mul(h01)).Add(mb.Mul(h11 * h)),
			Orientation: geom.SlerpShort(a.Orientation, b.Orientation, u),
		}
	}
	return p, nil
}

// tangent returns the velocity at sample i for Hermite interpolation, m/s: the
// central difference of its neighbours (Catmull–Rom for uneven spacing), one-sided at
// the ends.
func (tr *Trace) tangent(i int) mgl64.Vec3 {
	s := tr.Samples
	lo, hi := max(i-1, 0), min(i+1, len(s)-1)
	return s[hi].Position.Sub(s[lo].Position).Mul(1 / (s[hi].Time - s[lo].Time))
}
