package wire

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
)

// Round-trip tolerances: half a step, plus room for float64 rounding.
const slack = 1e-9

func randQuat(rng *rand.Rand) mgl64.Quat {
	// Uniform over rotations: a normalized 4-D Gaussian.
	q := mgl64.Quat{W: rng.NormFloat64(), V: mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}}
	return q.Normalize()
}

func uniform(rng *rand.Rand, lim float64) float64 { return (2*rng.Float64() - 1) * lim }

func randState(rng *rand.Rand) deadreckon.State {
	s := deadreckon.State{
		Time:            rng.Float64() * 1e5,
		Position:        mgl64.Vec3{uniform(rng, MaxHorizontal), uniform(rng, MaxHeight), uniform(rng, MaxHorizontal)},
		Velocity:        mgl64.Vec3{uniform(rng, MaxVelocity), uniform(rng, MaxVelocity), uniform(rng, MaxVelocity)},
		Acceleration:    mgl64.Vec3{uniform(rng, MaxAcceleration), uniform(rng, MaxAcceleration), uniform(rng, MaxAcceleration)},
		AngularVelocity: mgl64.Vec3{uniform(rng, MaxAngularVelocity), uniform(rng, MaxAngularVelocity), uniform(rng, MaxAngularVelocity)},
		Orientation:     randQuat(rng),
	}
	s.NumArticulations = rng.IntN(deadreckon.MaxArticulations + 1)
	for i := 0; i < s.NumArticulations; i++ {
		s.Articulations[i] = deadreckon.Articulation{Angle: uniform(rng, 10), Rate: uniform(rng, 31.99)}
	}
	return s
}

func roundTrip(t *testing.T, s deadreckon.State) deadreckon.State {
	t.Helper()
	w := NewBatchWriter(0)
	if err := w.Add(&Update{Actor: 1, State: s}); err != nil {
		t.Fatalf("Add(%+v): %v", s, err)
	}
	got, rejected, err := DecodeBatch(nil, w.Bytes())
	if err != nil || rejected != 0 || len(got) != 1 {
		t.Fatalf("DecodeBatch: %d updates, %d rejected, %v", len(got), rejected, err)
	}
	return got[0].State
}

func maxAbs3(a, b mgl64.Vec3) float64 {
	return max(math.Abs(a[0]-b[0]), math.Abs(a[1]-b[1]), math.Abs(a[2]-b[2]))
}

// TestQuantizationErrors round-trips random full updates and checks every field's
// worst error against the bound the package documents.
func TestQuantizationErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 50000
	if testing.Short() {
		n = 5000
	}
	var worst struct{ time, pos, vel, acc, angVel, orient, angle, rate float64 }
	for i := 0; i < n; i++ {
		s := randState(rng)
		got := roundTrip(t, s)
		worst.time = max(worst.time, math.Abs(got.Time-s.Time))
		worst.pos = max(worst.pos, maxAbs3(got.Position, s.Position))
		worst.vel = max(worst.vel, maxAbs3(got.Velocity, s.Velocity))
		worst.acc = max(worst.acc, maxAbs3(got.Acceleration, s.Acceleration))
		worst.angVel = max(worst.angVel, maxAbs3(got.AngularVelocity, s.AngularVelocity))
		worst.orient = max(worst.orient, rotationAngle(got.Orientation, s.Orientation))
		for j := 0; j < s.NumArticulations; j++ {
			d := math.Remainder(got.Articulations[j].Angle-s.Articulations[j].Angle, 2*math.Pi)
			worst.angle = max(worst.angle, math.Abs(d))
			worst.rate = max(worst.rate, math.Abs(got.Articulations[j].Rate-s.Articulations[j].Rate))
			if a := got.Articulations[j].Angle; a < -math.Pi || a >= math.Pi {
				t.Fatalf("angle %v decodes to %v, outside [−π, π)", s.Articulations[j].Angle, a)
			}
		}
		if math.Abs(got.Orientation.Len()-1) > 1e-12 {
			t.Fatalf("decoded orientation %v has length %v", got.Orientation, got.Orientation.Len())
		}
	}
	bounds := []struct {
		name         string
		worst, bound float64
	}{
		{"time (s)", worst.time, TimeStep / 2},
		{"position (m)", worst.pos, PositionStep / 2},
		{"velocity (m/s)", worst.vel, VelocityStep / 2},
		{"acceleration (m/s²)", worst.acc, AccelerationStep / 2},
		{"angular velocity (rad/s)", worst.angVel, AngularVelocityStep / 2},
		{"orientation (rad)", worst.orient, MaxOrientationError},
		{"articulation angle (rad)", worst.angle, AngleStep / 2},
		{"articulation rate (rad/s)", worst.rate, ArticulationRateStep / 2},
	}
	for _, b := range bounds {
		t.Logf("%-26s worst %.6g, bound %.6g", b.name, b.worst, b.bound)
		if b.worst > b.bound+slack {
			t.Errorf("%s: worst round-trip error %g > bound %g", b.name, b.worst, b.bound)
		}
	}
	// The orientation bound must not be loose by more than 2×, or it says little.
	if worst.orient < MaxOrientationError/2 {
		t.Errorf("orientation: worst %g is under half the bound %g; bound too loose", worst.orient, MaxOrientationError)
	}
}

// TestOrientationBoundAdversarial searches near the worst case the bound assumes:
// the largest component near 1/2 and the others near 1/2, each offset by half a step.
func TestOrientationBoundAdversarial(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	worst := 0.0
	for i := 0; i < 20000; i++ {
		c := [4]float64{}
		for j := range c {
			k := math.Round(0.5/quatStep) + float64(rng.IntN(9)-4)
			c[j] = (k + 0.5 - 1e-9) * quatStep * (1 - 2*float64(rng.IntN(2)))
		}
		q := fromComponents(c).Normalize()
		s := deadreckon.NewState(mgl64.Vec3{})
		s.Orientation = q
		got := roundTrip(t, s)
		worst = max(worst, rotationAngle(got.Orientation, q))
	}
	t.Logf("adversarial orientation worst %.6g rad, bound %.6g", worst, MaxOrientationError)
	if worst > MaxOrientationError {
		t.Errorf("orientation error %g > MaxOrientationError %g", worst, MaxOrientationError)
	}
}

func TestYawStaysYaw(t *testing.T) {
	for _, yaw := range []float64{0, 0.3, math.Pi / 2, -2, math.Pi, 3 * math.Pi / 2} {
		s := deadreckon.NewState(mgl64.Vec3{})
		s.Orientation = geom.YawQuat(yaw)
		got := roundTrip(t, s).Orientation
		if got.V[0] != 0 || got.V[2] != 0 {
			t.Errorf("yaw %v decodes to %v: x and z should stay exactly 0", yaw, got)
		}
		if e := rotationAngle(got, s.Orientation); e > MaxOrientationError {
			t.Errorf("yaw %v: error %v", yaw, e)
		}
	}
}

func TestSaturation(t *testing.T) {
	s := deadreckon.NewState(mgl64.Vec3{})
	s.Velocity = mgl64.Vec3{100, -100, 0}
	s.Acceleration = mgl64.Vec3{-1e9, 1e9, 0}
	s.AngularVelocity = mgl64.Vec3{0, 50, -50}
	s.Articulations[0].Rate = -1000
	s.NumArticulations = 1
	got := roundTrip(t, s)
	want := []struct {
		name      string
		got, want float64
	}{
		{"vx", got.Velocity[0], MaxVelocity},
		{"vy", got.Velocity[1], -32},
		{"ax", got.Acceleration[0], -32},
		{"ay", got.Acceleration[1], MaxAcceleration},
		{"wy", got.AngularVelocity[1], MaxAngularVelocity},
		{"wz", got.AngularVelocity[2], -4},
		{"rate", got.Articulations[0].Rate, -32},
	}
	for _, w := range want {
		if w.got != w.want {
			t.Errorf("%s saturates to %v, want %v", w.name, w.got, w.want)
		}
	}
}

func TestTimeWraps(t *testing.T) {
	cases := []struct{ in, want float64 }{
		{0, 0},
		{0.0004, 0},
		{0.0005, 0.001},
		{TimeWrap - 0.001, TimeWrap - 0.001},
		{TimeWrap, 0},
		{TimeWrap + 1.5, 1.5},
	}
	for _, tc := range cases {
		s := deadreckon.NewState(mgl64.Vec3{})
		s.Time = tc.in
		if got := roundTrip(t, s).Time; math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("time %v decodes to %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestPositionLimits(t *testing.T) {
	for _, p := range []mgl64.Vec3{
		{MaxHorizontal, MaxHeight, MaxHorizontal},
		{-MaxHorizontal, -MaxHeight, -MaxHorizontal},
		{-MaxHorizontal - 0.0004, 0, 0},
	} {
		got := roundTrip(t, deadreckon.NewState(p)).Position
		if maxAbs3(got, p) > PositionStep/2+slack {
			t.Errorf("position %v decodes to %v", p, got)
		}
	}
}

func TestBitPacker(t *testing.T) {
	// Fields straddling word boundaries, read back in order.
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 200; trial++ {
		var p bitPacker
		var widths []uint
		var vals []int64
		for used := uint(0); ; {
			n := uint(1 + rng.IntN(24))
			if used+n > 192 {
				break
			}
			v := rng.Int64N(1<<n) - 1<<(n-1)
			p.putSigned(v, n)
			widths, vals = append(widths, n), append(vals, v)
			used += n
		}
		p.pos = 0
		for i, n := range widths {
			if got := p.getSigned(n); got != vals[i] {
				t.Fatalf("trial %d field %d (%d bits): got %d, want %d", trial, i, n, got, vals[i])
			}
		}
	}
}
