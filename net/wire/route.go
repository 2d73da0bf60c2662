package wire

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
)

// Route message flags.
const (
	// RouteClosed: the route loops from its last waypoint back to its first.
	RouteClosed uint8 = 1 << 0
	// RouteSpline: a Catmull-Rom spline through the waypoints, not straight legs.
	RouteSpline uint8 = 1 << 1
	routeFlags        = RouteClosed | RouteSpline
)

// MaxRouteWaypoints is the most waypoints a Route message carries, 84: as many as
// fit one control frame (MaxFrameSize), fewer than deadreckon.MaxRouteWaypoints. A
// longer route is published as several actors' routes would be: in legs.
const MaxRouteWaypoints = (MaxFrameSize - routeHeadSize) / waypointSize

// routeHeadSize is a Route message's size before its waypoints: header, actor u16,
// route u16, flags u8, count u16.
const routeHeadSize = HeaderSize + 2 + 2 + 1 + 2

// waypointSize is one waypoint: x, y, z as signed 32-bit millimetres.
const waypointSize = 12

// Route publishes the route an actor follows (path-based dead reckoning, PROTOCOL.md
// section 4): its owner sends it on the reliable stream once, and again when it
// changes, before any Progress on it. Layout: header, actor u16, route u16 (never 0),
// flags u8, count u16 (2…84), count × (x, y, z i32 mm): 9 + 12n bytes, at most
// MaxFrameSize.
type Route struct {
	// Actor is the actor that follows it (never 0).
	Actor ActorID
	// Route numbers it; every Progress on it names it (never 0).
	Route uint16
	// Flags are RouteClosed and RouteSpline.
	Flags uint8
	// Waypoints are world positions, m, within ±MaxHorizontal and ±MaxHeight.
	Waypoints []mgl64.Vec3
}

// Type returns MsgRoute.
func (m *Route) Type() MsgType { return MsgRoute }

// Length returns the encoded size, 9 + 12 bytes per waypoint.
func (m *Route) Length() int { return routeHeadSize + waypointSize*len(m.Waypoints) }

func (m *Route) check() error {
	if m.Actor == 0 || m.Route == 0 || m.Flags&^routeFlags != 0 {
		return fmt.Errorf("wire: route: actor %d, route %d, flags %#x: %w", m.Actor, m.Route, m.Flags, ErrInvalid)
	}
	min := 2
	if m.Flags&RouteClosed != 0 {
		min = 3
	}
	if n := len(m.Waypoints); n < min || n > MaxRouteWaypoints {
		return fmt.Errorf("wire: route: %d waypoints (need %d to %d): %w", n, min, MaxRouteWaypoints, ErrOutOfRange)
	}
	return nil
}

// Append appends the encoded message; NaN, Inf or a waypoint out of range is refused.
func (m *Route) Append(b []byte) ([]byte, error) {
	if err := m.check(); err != nil {
		return b, err
	}
	out := appendHeader(b, MsgRoute)
	out = binary.BigEndian.AppendUint16(out, uint16(m.Actor))
	out = binary.BigEndian.AppendUint16(out, m.Route)
	out = append(out, m.Flags)
	out = binary.BigEndian.AppendUint16(out, uint16(len(m.Waypoints)))
	for i, w := range m.Waypoints {
		x, y, z, err := positionCodes(w)
		if err != nil {
			return b, fmt.Errorf("wire: route: waypoint %d: %w", i, err)
		}
		out = binary.BigEndian.AppendUint32(out, uint32(int32(x)))
		out = binary.BigEndian.AppendUint32(out, uint32(int32(y)))
		out = binary.BigEndian.AppendUint32(out, uint32(int32(z)))
	}
	return out, nil
}

func parseRoute(b []byte) (*Route, int, error) {
	if err := checkHeader(b, MsgRoute); err != nil {
		return nil, 0, err
	}
	r := reader{b: b, off: HeaderSize, ctx: "route"}
	m := &Route{Actor: ActorID(r.u16()), Route: r.u16(), Flags: r.u8()}
	n := int(r.u16())
	if r.err != nil {
		return nil, 0, r.err
	}
	if n > MaxRouteWaypoints {
		return nil, 0, fmt.Errorf("wire: route: %d waypoints, limit %d: %w", n, MaxRouteWaypoints, ErrOutOfRange)
	}
	if !r.need(n * waypointSize) {
		return nil, 0, r.err
	}
	m.Waypoints = make([]mgl64.Vec3, n)
	for i := range m.Waypoints {
		x, y, z := int32(r.u32()), int32(r.u32()), int32(r.u32())
		if math.Abs(float64(x)) > maxHorizontalMM || math.Abs(float64(z)) > maxHorizontalMM || math.Abs(float64(y)) > maxHeightMM {
			return nil, 0, fmt.Errorf("wire: route: waypoint %d out of range: %w", i, ErrOutOfRange)
		}
		m.Waypoints[i] = mgl64.Vec3{float64(x) * PositionStep, float64(y) * PositionStep, float64(z) * PositionStep}
	}
	if err := m.check(); err != nil {
		return nil, 0, err
	}
	return m, r.off, nil
}

// ProgressSize returns the size of a Progress message with n articulations:
// 21 + 4n bytes.
func ProgressSize(n int) int { return progressMinSize + n*articulationSize }

// progressMinSize is a Progress without articulations: header, actor u16, seq u16,
// time u32, route u16, s u32, rate i16, accel i16, count u8.
const progressMinSize = HeaderSize + 2 + 2 + 4 + 2 + 4 + 2 + 2 + 1

// Progress quanta and ranges.
const (
	// ProgressStep is the arc length quantum, 1 mm.
	ProgressStep = 0.001
	// RateStep is the rate quantum, 1/512 m/s; rates saturate at ±64 m/s.
	RateStep = 1.0 / 512
	// RouteAccelStep is the acceleration quantum, 1/256 m/s²; it saturates at
	// ±128 m/s².
	RouteAccelStep = 1.0 / 256
)

// maxProgressMM is the largest arc length code: deadreckon.MaxRouteLength in mm.
const maxProgressMM = deadreckon.MaxRouteLength / ProgressStep

// Progress says how far along its route an actor is (a datagram, PROTOCOL.md
// section 4). Layout: header, actor u16, seq u16 (the actor's update sequence, shared
// with its StateBatch records), time u32 ms, route u16 (never 0), s u32 mm, rate i16
// (1/512 m/s), accel i16 (1/256 m/s²), count u8 (0…4), count × (angle u16, rate i16):
// 21 + 4n bytes.
type Progress struct {
	// Actor is the actor (never 0); Seq its update sequence number.
	Actor ActorID
	Seq   uint16
	// Progress is the progress: its Route, Time (owner clock, s, ≥ 0), S (0 to
	// deadreckon.MaxRouteLength m), Rate, Accel and articulations.
	Progress deadreckon.Progress
}

// Type returns MsgProgress.
func (m *Progress) Type() MsgType { return MsgProgress }

// Length returns the encoded size, 21 + 4 bytes per articulation.
func (m *Progress) Length() int {
	return ProgressSize(max(0, min(m.Progress.NumArticulations, deadreckon.MaxArticulations)))
}

// Append appends the encoded message. NaN or Inf anywhere, a negative time, S outside
// [0, deadreckon.MaxRouteLength], route 0 or more than 4 articulations is refused;
// rate and acceleration saturate.
func (m *Progress) Append(b []byte) ([]byte, error) {
	p := &m.Progress
	if m.Actor == 0 || p.Route == 0 {
		return b, fmt.Errorf("wire: progress: actor %d, route %d: %w", m.Actor, p.Route, ErrInvalid)
	}
	if !geom.Finite(p.S, p.Rate, p.Accel) {
		return b, fmt.Errorf("wire: progress of actor %d: %w", m.Actor, ErrNotFinite)
	}
	s := math.Round(p.S / ProgressStep)
	if s < 0 || s > maxProgressMM {
		return b, fmt.Errorf("wire: progress of actor %d: s %v m: %w", m.Actor, p.S, ErrOutOfRange)
	}
	joints := deadreckon.State{NumArticulations: p.NumArticulations, Articulations: p.Articulations}
	if err := checkArticulations(&joints); err != nil {
		return b, fmt.Errorf("wire: progress of actor %d: %w", m.Actor, err)
	}
	ms, err := encodeTime(p.Time)
	if err != nil {
		return b, fmt.Errorf("wire: progress of actor %d: %w", m.Actor, err)
	}
	out := appendHeader(b, MsgProgress)
	out = binary.BigEndian.AppendUint16(out, uint16(m.Actor))
	out = binary.BigEndian.AppendUint16(out, m.Seq)
	out = binary.BigEndian.AppendUint32(out, ms)
	out = binary.BigEndian.AppendUint16(out, p.Route)
	out = binary.BigEndian.AppendUint32(out, uint32(s))
	out = binary.BigEndian.AppendUint16(out, uint16(saturate(p.Rate, RateStep, 16)))
	out = binary.BigEndian.AppendUint16(out, uint16(saturate(p.Accel, RouteAccelStep, 16)))
	return appendArticulations(out, &joints), nil
}

func parseProgress(b []byte) (*Progress, int, error) {
	if err := checkHeader(b, MsgProgress); err != nil {
		return nil, 0, err
	}
	r := reader{b: b, off: HeaderSize, ctx: "progress"}
	m := &Progress{Actor: ActorID(r.u16()), Seq: r.u16()}
	p := &m.Progress
	p.Time = decodeTime(r.u32())
	p.Route = r.u16()
	s := r.u32()
	p.Rate = float64(int16(r.u16())) * RateStep
	p.Accel = float64(int16(r.u16())) * RouteAccelStep
	var joints deadreckon.State
	parseArticulations(&r, &joints)
	if r.err != nil {
		return nil, 0, r.err
	}
	if m.Actor == 0 || p.Route == 0 {
		return nil, 0, fmt.Errorf("wire: progress: actor %d, route %d: %w", m.Actor, p.Route, ErrInvalid)
	}
	if float64(s) > maxProgressMM {
		return nil, 0, fmt.Errorf("wire: progress: s %d mm: %w", s, ErrOutOfRange)
	}
	p.S = float64(s) * ProgressStep
	p.NumArticulations, p.Articulations = joints.NumArticulations, joints.Articulations
	return m, r.off, nil
}
