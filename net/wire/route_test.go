package wire

import (
	"bytes"
	"errors"
	"io"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
)

// routeMessages are a Route and a Progress with their exact encodings.
func routeMessages(t *testing.T) []knownCase {
	prog := deadreckon.Progress{Route: 3, Time: 12.345, S: 101.5, Rate: 8.5, Accel: -2,
		NumArticulations: 1, Articulations: [deadreckon.MaxArticulations]deadreckon.Articulation{{Angle: math.Pi / 2, Rate: 0.25}}}
	return []knownCase{
		{"route", &Route{Actor: 42, Route: 3, Flags: RouteClosed | RouteSpline,
			Waypoints: []mgl64.Vec3{{1, 2, 3}, {-1.5, 0, 0}, {0, 0.001, -8000}}},
			unhex(t, "05 13 002a 0003 03 0003 000003e8 000007d0 00000bb8 fffffa24 00000000 00000000 00000000 00000001 ff85ee00")},
		{"progress", &Progress{Actor: 42, Seq: 7, Progress: prog},
			unhex(t, "05 22 002a 0007 00003039 0003 00018c7c 1100 fe00 01 4000 0100")},
	}
}

func TestRouteMessagesKnown(t *testing.T) {
	for _, tc := range routeMessages(t) {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.msg.Append(nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b, tc.want) {
				t.Fatalf("encoded % x\nwant    % x", b, tc.want)
			}
			if len(b) != tc.msg.Length() {
				t.Errorf("Length %d, encoded %d bytes", tc.msg.Length(), len(b))
			}
			m, n, err := Parse(b)
			if err != nil || n != len(b) {
				t.Fatalf("Parse: %d bytes, %v", n, err)
			}
			b2, err := m.Append(nil)
			if err != nil || !bytes.Equal(b2, b) {
				t.Fatalf("re-encoded % x, %v", b2, err)
			}
		})
	}
}

func TestProgressDecodes(t *testing.T) {
	m := routeMessages(t)[1].msg.(*Progress)
	b, _ := m.Append(nil)
	got, _, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	p := got.(*Progress).Progress
	w := m.Progress
	if p.Route != w.Route || math.Abs(p.Time-w.Time) > TimeStep/2 || math.Abs(p.S-w.S) > ProgressStep/2 ||
		math.Abs(p.Rate-w.Rate) > RateStep/2 || math.Abs(p.Accel-w.Accel) > RouteAccelStep/2 ||
		p.NumArticulations != 1 || math.Abs(p.Articulations[0].Angle-w.Articulations[0].Angle) > AngleStep {
		t.Errorf("decoded %+v, sent %+v", p, w)
	}
}

func TestRouteMessagesRefuse(t *testing.T) {
	nan := math.NaN()
	many := make([]mgl64.Vec3, MaxRouteWaypoints+1)
	for i := range many {
		many[i] = mgl64.Vec3{float64(i), 0, 0}
	}
	for _, tc := range []struct {
		name string
		msg  Message
		want error
	}{
		{"route NaN", &Route{Actor: 1, Route: 1, Waypoints: []mgl64.Vec3{{0, 0, 0}, {nan, 0, 0}}}, ErrNotFinite},
		{"route Inf", &Route{Actor: 1, Route: 1, Waypoints: []mgl64.Vec3{{0, 0, 0}, {0, math.Inf(1), 0}}}, ErrNotFinite},
		{"route far", &Route{Actor: 1, Route: 1, Waypoints: []mgl64.Vec3{{0, 0, 0}, {9000, 0, 0}}}, ErrOutOfRange},
		{"route one waypoint", &Route{Actor: 1, Route: 1, Waypoints: []mgl64.Vec3{{0, 0, 0}}}, ErrOutOfRange},
		{"closed route of two", &Route{Actor: 1, Route: 1, Flags: RouteClosed, Waypoints: []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}}}, ErrOutOfRange},
		{"route too many", &Route{Actor: 1, Route: 1, Waypoints: many}, ErrOutOfRange},
		{"route 0", &Route{Actor: 1, Waypoints: []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}}}, ErrInvalid},
		{"route flags", &Route{Actor: 1, Route: 1, Flags: 4, Waypoints: []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}}}, ErrInvalid},
		{"progress NaN", &Progress{Actor: 1, Progress: deadreckon.Progress{Route: 1, Rate: nan}}, ErrNotFinite},
		{"progress Inf time", &Progress{Actor: 1, Progress: deadreckon.Progress{Route: 1, Time: math.Inf(1)}}, ErrNotFinite},
		{"progress negative s", &Progress{Actor: 1, Progress: deadreckon.Progress{Route: 1, S: -1}}, ErrOutOfRange},
		{"progress route 0", &Progress{Actor: 1}, ErrInvalid},
		{"progress joints", &Progress{Actor: 1, Progress: deadreckon.Progress{Route: 1, NumArticulations: 5}}, ErrOutOfRange},
	} {
		if b, err := tc.msg.Append([]byte{9}); !errors.Is(err, tc.want) || len(b) != 1 {
			t.Errorf("%s: Append = % x, %v; want %v and b unchanged", tc.name, b, err, tc.want)
		}
	}
	// Decoders: a count past the limit, a waypoint code past the range, route 0.
	for _, tc := range []struct {
		name string
		b    string
		want error
	}{
		{"route count", "05 13 0001 0001 00 0101", ErrOutOfRange},
		{"route waypoint range", "05 13 0001 0001 00 0002 80000000 00000000 00000000 00000000 00000000 00000000", ErrOutOfRange},
		{"route truncated", "05 13 0001 0001 00 0002 00000000", io.EOF},
		{"progress route 0", "05 22 0001 0000 00000000 0000 00000000 0000 0000 00", ErrInvalid},
		{"progress s range", "05 22 0001 0000 00000000 0001 ffffffff 0000 0000 00", ErrOutOfRange},
		{"progress joints", "05 22 0001 0000 00000000 0001 00000000 0000 0000 05", ErrOutOfRange},
	} {
		if m, n, err := Parse(unhex(t, tc.b)); !errors.Is(err, tc.want) || m != nil || n != 0 {
			t.Errorf("%s: Parse = %v, %d, %v; want %v", tc.name, m, n, err, tc.want)
		}
	}
}

// FuzzRoute feeds arbitrary bytes to the Route decoder: it must not panic, and what
// it accepts is in range, re-encodes to the same bytes, and either makes a
// deadreckon.Route or is refused by NewRoute with ErrInvalidRoute.
func FuzzRoute(f *testing.F) {
	for _, tc := range routeMessages(&testing.T{}) {
		f.Add(tc.want)
	}
	f.Add([]byte{Version, byte(MsgRoute), 0, 1, 0, 1, 0, 0, 2})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) >= HeaderSize {
			b[0], b[1] = Version, byte(MsgRoute)
		}
		m, n, err := parseRoute(b)
		if err != nil {
			return
		}
		if len(m.Waypoints) < 2 || len(m.Waypoints) > MaxRouteWaypoints {
			t.Fatalf("%d waypoints accepted", len(m.Waypoints))
		}
		for _, w := range m.Waypoints {
			if math.Abs(w[0]) > MaxHorizontal || math.Abs(w[2]) > MaxHorizontal || math.Abs(w[1]) > MaxHeight {
				t.Fatalf("waypoint %v out of range", w)
			}
		}
		b2, err := m.Append(nil)
		if err != nil || !bytes.Equal(b2, b[:n]) {
			t.Fatalf("re-encoded % x, %v; parsed % x", b2, err, b[:n])
		}
		if _, err := deadreckon.NewRoute(m.Waypoints, m.Flags&RouteClosed != 0, m.Flags&RouteSpline != 0); err != nil && !errors.Is(err, deadreckon.ErrInvalidRoute) {
			t.Fatalf("NewRoute: %v", err)
		}
	})
}

// FuzzProgress feeds arbitrary bytes to the Progress decoder: it must not panic, and
// what it accepts is finite, in range and re-encodes to the same bytes.
func FuzzProgress(f *testing.F) {
	for _, tc := range routeMessages(&testing.T{}) {
		f.Add(tc.want)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) >= HeaderSize {
			b[0], b[1] = Version, byte(MsgProgress)
		}
		m, n, err := parseProgress(b)
		if err != nil {
			return
		}
		p := m.Progress
		if p.Route == 0 || !(p.S >= 0 && p.S <= deadreckon.MaxRouteLength) || math.IsNaN(p.Rate) || math.IsNaN(p.Accel) ||
			p.NumArticulations > deadreckon.MaxArticulations {
			t.Fatalf("accepted %+v", p)
		}
		b2, err := m.Append(nil)
		if err != nil || !bytes.Equal(b2, b[:n]) {
			t.Fatalf("re-encoded % x, %v; parsed % x", b2, err, b[:n])
		}
	})
}
