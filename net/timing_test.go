package net

import (
	"math"
	"testing"
)

func TestClampStamp(t *testing.T) {
	const recv = 100.0
	for _, tc := range []struct {
		name       string
		stamp, rtt float64
		want       float64
		clamped    bool
	}{
		{name: "just sent, LAN", stamp: 99.999, rtt: 0.002, want: 99.999},
		{name: "half a round trip ahead (offset error)", stamp: 100.05, rtt: 0.1, want: 100.05},
		{name: "a round trip late", stamp: 99.8, rtt: 0.2, want: 99.8},
		{name: "1.9 s in the future on a LAN", stamp: 101.9, rtt: 0.002, want: recv + 0.001 + stampMargin, clamped: true},
		{name: "1.9 s in the future, 200 ms round trip", stamp: 101.9, rtt: 0.2, want: recv + 0.1 + stampMargin, clamped: true},
		{name: "1.9 s in the past on a LAN", stamp: 98.1, rtt: 0.002, want: recv - 0.003 - lateMargin, clamped: true},
		{name: "negative rtt counts as 0", stamp: 101, rtt: -1, want: recv + stampMargin, clamped: true},
		{name: "infinite rtt counts as 0", stamp: 101, rtt: math.Inf(1), want: recv + stampMargin, clamped: true},
	} {
		got, clamped := clampStamp(tc.stamp, recv, tc.rtt)
		if math.Abs(got-tc.want) > 1e-9 || clamped != tc.clamped {
			t.Errorf("%s: clampStamp(%v, %v, %v) = %v, %v; want %v, %v", tc.name, tc.stamp, recv, tc.rtt,
				got, clamped, tc.want, tc.clamped)
		}
	}
	if got, _ := clampStamp(math.NaN(), recv, 0.01); !math.IsNaN(got) {
		t.Errorf("NaN stamp became %v; validation must see it", got)
	}
}

func TestReach(t *testing.T) {
	for _, tc := range []struct {
		v0, dt, vmax, accel, want float64
	}{
		{0, 0, 30, 40, 0},
		{10, -1, 30, 40, 0},
		{0, 0.5, 30, 40, 5},             // ½·40·0.25
		{0, 5, 30, 40, 11.25 + 30*4.25}, // 0.75 s to top speed, then cruise: 138.75 m
		{30, 2, 30, 40, 60},             // at top speed already
		{50, 2, 30, 40, 60},             // faster than possible: capped
		{-5, 0.5, 30, 40, 5},            // negative speed read as 0
		{10, 1, 30, 0, 10},              // no acceleration allowed
		{20, 0.25, 30, 40, 5 + 1.25},    // reaches 30 exactly at 0.25 s
		{20, 1.25, 30, 40, 6.25 + 30*1}, // then cruises
	} {
		if got := reach(tc.v0, tc.dt, tc.vmax, tc.accel); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("reach(%v m/s, %v s, %v m/s, %v m/s²) = %v m, want %v m", tc.v0, tc.dt, tc.vmax, tc.accel, got, tc.want)
		}
	}
}

func TestMaxTravel(t *testing.T) {
	l := Limits{}.withDefaults()
	for _, tc := range []struct {
		name      string
		v0, dt, d float64 // anchored speed, time since the anchor, distance moved
		ok        bool
	}{
		{"steady drive", 10, 0.5, 5, true},
		{"short gap: top speed allowed whatever the anchored speed", 0, 1, 30 + DefaultPositionSlack - 0.01, true},
		{"short gap: faster than top speed", 0, 1, 30 + DefaultPositionSlack + 0.01, false},
		{"5 s of silence at rest, then 150 m", 0, 5, 150, false},
		{"5 s of silence at rest, then 120 m", 0, 5, 120, true},
		{"5 s of heartbeats at 20 m/s: 100 m", 20, 5, 100, true},
		{"5 s at top speed", 30, 5, 150, true},
		{"60 s parked, then 30 m", 0, 60, 30, true},
		{"60 s parked, then farther than top speed allows", 0, 60, 1800, false},
	} {
		if got := tc.d <= l.MaxTravel(tc.v0, tc.dt); got != tc.ok {
			t.Errorf("%s: %v m in %v s from %v m/s allowed = %v (bound %.2f m), want %v", tc.name, tc.d, tc.dt, tc.v0,
				got, l.MaxTravel(tc.v0, tc.dt), tc.ok)
		}
	}
	// The bound never shrinks as time passes, across the switch at silentGap too.
	for _, v0 := range []float64{0, 10, 30} {
		for dt := 0.0; dt < 10; dt += 0.01 {
			if a, b := l.MaxTravel(v0, dt), l.MaxTravel(v0, dt+0.01); b < a-1e-9 {
				t.Fatalf("maxTravel(%v, %v) = %v, then %v at %v s", v0, dt, a, b, dt+0.01)
			}
		}
	}
}
