package lab

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

func TestReadTraceGood(t *testing.T) {
	for _, c := range []struct {
		name, text  string
		n           int
		orientation bool
		last        mgl64.Vec3
	}{
		{"plain", "0,0,0,0\n1,10,0,0\n", 2, false, mgl64.Vec3{10, 0, 0}},
		{"header and spaces", "t, x, y, z\n 0 , 1 , 2 , 3 \n0.5,2,2,3\r\n\n2.5 ,4,2,3\n", 3, false, mgl64.Vec3{4, 2, 3}},
		{"comments", "# recorded on a test track\nt,x,y,z\n# a note\n0,0,0,0\n0.1,1,0,0\n", 2, false, mgl64.Vec3{1, 0, 0}},
		{"quaternion, normalised", "t,x,y,z,qw,qx,qy,qz\n0,0,0,0,2,0,0,0\n1,1,0,0,0,0,3,0\n", 2, true, mgl64.Vec3{1, 0, 0}},
		{"uneven spacing", "0,0,0,0\n0.01,0.1,0,0\n0.9,9,0,0\n1.0,10,0,0\n", 4, false, mgl64.Vec3{10, 0, 0}},
	} {
		tr, err := ReadTrace(strings.NewReader(c.text))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if len(tr.Samples) != c.n || tr.HasOrientation != c.orientation {
			t.Errorf("%s: %d samples, orientation %v; want %d, %v", c.name, len(tr.Samples), tr.HasOrientation, c.n, c.orientation)
		}
		if got := tr.Samples[len(tr.Samples)-1].Position; got != c.last {
			t.Errorf("%s: last position %v, want %v", c.name, got, c.last)
		}
		for i, s := range tr.Samples {
			if l := s.Orientation.Len(); math.Abs(l-1) > 1e-12 {
				t.Errorf("%s: sample %d orientation length %v, want 1", c.name, i, l)
			}
		}
	}
}

func TestReadTraceBad(t *testing.T) {
	for _, c := range []struct {
		name, text, want string
	}{
		{"letters in data", "0,0,0,0\n1,x,0,0\n", "line 2: field 2 \"x\" is not a number"},
		{"three fields", "t,x,y,z\n0,0,0,0\n1,2,3\n", "line 3: 3 fields"},
		{"mixed widths", "0,0,0,0\n1,0,0,0,1,0,0,0\n", "line 2: 8 fields, but earlier rows have 4"},
		{"time backwards", "0,0,0,0\n2,0,0,0\n1,0,0,0\n", "line 3: time 1 does not follow 2"},
		{"repeated time", "0,0,0,0\n0,1,0,0\n", "line 2: time 0 does not follow 0"},
		{"NaN", "0,0,0,0\n1,NaN,0,0\n", "line 2: field 2 is NaN"},
		{"infinite", "0,0,0,0\n1,0,+Inf,0\n", "line 2: field 3 is +Inf"},
		{"zero quaternion", "0,0,0,0,1,0,0,0\n1,0,0,0,0,0,0,0\n", "line 2: quaternion of length 0"},
		{"far away", "0,0,0,0\n1,1e12,0,0\n", "line 2: coordinate 1e+12"},
		{"one sample", "t,x,y,z\n0,0,0,0\n", "1 samples, need at least 2"},
		{"empty", "", "0 samples"},
		{"second header", "t,x,y,z\n0,0,0,0\nt,x,y,z\n", "line 3: field 1 \"t\" is not a number"},
	} {
		_, err := ReadTrace(strings.NewReader(c.text))
		if err == nil {
			t.Errorf("%s: no error, want one containing %q", c.name, c.want)
			continue
		}
		if !errors.Is(err, errTrace) {
			t.Errorf("%s: error %q does not wrap ErrTrace", c.name, err)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want it to contain %q", c.name, err, c.want)
		}
	}
}

func TestReadTraceFileNamesFile(t *testing.T) {
	name := filepath.Join(t.TempDir(), "bad.csv")
	if err := os.WriteFile(name, []byte("0,0,0,0\n1,0,zero,0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := readTraceFile(name)
	if err == nil || !strings.Contains(err.Error(), "bad.csv") || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("error %v, want one naming bad.csv and line 2", err)
	}
	if _, err := readTraceFile(filepath.Join(t.TempDir(), "missing.csv")); err == nil || errors.Is(err, errTrace) {
		t.Errorf("missing file: error %v, want a read error that is not ErrTrace", err)
	}
}

func TestTracePathInterpolates(t *testing.T) {
	// Samples 1 s apart, turning 90° left: the path at 4 fps has the midpoints.
	tr, err := ReadTrace(strings.NewReader(
		"t,x,y,z,qw,qx,qy,qz\n" +
			"10,0,0,0,1,0,0,0\n" +
			"11,4,0,0,0.7071067811865476,0,0.7071067811865476,0\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := tr.Path("turn", 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Poses) != 5 {
		t.Fatalf("%d frames over 1 s at 4 fps, want 5 (both ends)", len(p.Poses))
	}
	mid := p.Poses[2]
	if mid.Time != 0.5 || !mid.Position.ApproxEqualThreshold(mgl64.Vec3{2, 0, 0}, 1e-12) {
		t.Errorf("middle frame at t=%v, %v; want t=0.5 at (2,0,0)", mid.Time, mid.Position)
	}
	if h := mgl64.RadToDeg(geom.Yaw(mid.Orientation)); math.Abs(h-45) > 1e-9 {
		t.Errorf("middle heading %v°, want 45° (half of the 90° turn)", h)
	}
	short, err := tr.Path("turn", 4, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if len(short.Poses) != 3 {
		t.Errorf("%d frames when cut at 0.5 s, want 3", len(short.Poses))
	}
}

func TestTraceFacesTravel(t *testing.T) {
	// Position-only: north (−z), a pause, then west (−x).
	tr, err := ReadTrace(strings.NewReader("0,0,0,0\n1,0,0,-5\n2,0,0,-5\n3,-5,0,-5\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{90, 90, 180, 180}
	for i, s := range tr.Samples {
		if h := mgl64.RadToDeg(geom.Yaw(s.Orientation)); math.Abs(math.Remainder(h-want[i], 360)) > 1e-9 {
			t.Errorf("sample %d heading %v°, want %v°", i, h, want[i])
		}
	}
}

func FuzzReadTrace(f *testing.F) {
	f.Add("t,x,y,z\n0,0,0,0\n1,1,0,0\n")
	f.Add("0,0,0,0,1,0,0,0\n0.5,1,2,3,0,1,0,0\n")
	f.Add("# c\n\n0 , 1e300, -1e300, 0\n1,0,0,0\n")
	f.Add("0,0,0,0\n0,0,0,0\n")
	f.Fuzz(func(t *testing.T, text string) {
		tr, err := ReadTrace(strings.NewReader(text))
		if err != nil {
			if !errors.Is(err, errTrace) && !strings.Contains(err.Error(), "read trace") {
				t.Fatalf("error %v neither wraps ErrTrace nor is a read error", err)
			}
			return
		}
		for i, s := range tr.Samples {
			if i > 0 && !(s.Time > tr.Samples[i-1].Time) {
				t.Fatalf("sample %d time %v does not follow %v", i, s.Time, tr.Samples[i-1].Time)
			}
			if l := s.Orientation.Len(); math.IsNaN(l) || math.Abs(l-1) > 1e-9 {
				t.Fatalf("sample %d orientation length %v", i, l)
			}
		}
		span := tr.Samples[len(tr.Samples)-1].Time - tr.Samples[0].Time
		if span > 100 || span < 1e-3 {
			return // keep the resampling cheap
		}
		p, err := tr.Path("fuzz", 30, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, pose := range p.Poses {
			for k := 0; k < 3; k++ {
				if math.IsNaN(pose.Position[k]) {
					t.Fatalf("NaN position at t=%v", pose.Time)
				}
			}
		}
	})
}
