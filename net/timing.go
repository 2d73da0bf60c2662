package net

import "math"

// stampMargin is the slack in seconds ahead of an owner timestamp's window:
// round-trip variation since the measurement, and the clock filter's slew.
const stampMargin = 0.05

// lateMargin is the slack in seconds behind it: an update may also wait in queues
// (a busy sender or host) beyond its round trip.
const lateMargin = 0.25

// stampWindow returns the host-clock interval, in seconds, that the timestamp of an
// update received at host time received may honestly lie in, from a client whose
// round trip is rtt seconds. The client stamps an update with its estimate of the
// host clock when it sends, an estimate off by at most half the round trip; the
// update then takes between 0 and one round trip to arrive. So the stamp lies in
// [received − 1.5·rtt, received + 0.5·rtt], widened by lateMargin behind and
// stampMargin ahead. A negative or non-finite rtt counts as 0.
func stampWindow(received, rtt float64) (lo, hi float64) {
	if !(rtt > 0) || math.IsInf(rtt, 1) {
		rtt = 0
	}
	return received - 1.5*rtt - lateMargin, received + 0.5*rtt + stampMargin
}

// clampStamp limits an owner's host-clock timestamp to stampWindow(received, rtt) and
// reports whether it had to. Observers extrapolate an actor from its timestamp to
// their now, so a stamp from the future or the past would draw the tank ahead or
// behind of where it is by its speed times the error: 1.9 s at 30 m/s is 57 m.
// Clamped, the error is at most about half a round trip. A NaN stamp is left for
// validation to refuse.
func clampStamp(stamp, received, rtt float64) (float64, bool) {
	lo, hi := stampWindow(received, rtt)
	switch {
	case stamp > hi:
		return hi, true
	case stamp < lo:
		return lo, true
	}
	return stamp, false
}

// silentGap is how old, in seconds, an actor's anchor must be for the next update to
// count as coming after silence. Anchors move every AnchorPeriod while updates flow,
// so only an actor that went quiet (a parked tank publishing only heartbeats, a lost
// link, or a cheat who waits to jump) has an older one.
const silentGap = 1.5 * AnchorPeriod

// speedSlack is the speed in m/s added to an anchor's reported speed before its
// reach is computed: collisions change a tank's velocity faster than its engine.
const speedSlack = 5.0

// reach returns the farthest, in meters, a vehicle moving at speed v0 (m/s) can get
// in dt seconds when it accelerates at most accel (m/s²) and never exceeds vmax
// (m/s): full throttle in a straight line, then cruising at vmax.
func reach(v0, dt, vmax, accel float64) float64 {
	if dt <= 0 {
		return 0
	}
	v0 = math.Min(math.Max(v0, 0), vmax)
	if accel <= 0 {
		return v0 * dt
	}
	t1 := (vmax - v0) / accel // time to top speed
	if dt <= t1 {
		return v0*dt + 0.5*accel*dt*dt
	}
	return v0*t1 + 0.5*accel*t1*t1 + vmax*(dt-t1)
}

// MaxTravel returns how far in meters an actor may honestly have moved dt seconds
// after its anchor, at which it was moving at speed v0, under l's MaxSpeed,
// MaxAcceleration and PositionSlack. Up to silentGap the bound is
// the top speed times the time (what the anchor period has always allowed, loose
// enough for collisions). After silence it is what the tank can reach from its
// anchored speed under the speed and acceleration limits, so that a cheat cannot go
// quiet and then jump as far as top speed over the whole silence would allow (a
// tank at rest covers at most 139 m in 5 s, 145 m with the slacks, not 150).
// PositionSlack is added either way.
func (l *Limits) MaxTravel(v0, dt float64) float64 {
	if dt <= 0 {
		return l.PositionSlack
	}
	short := l.MaxSpeed * math.Min(dt, silentGap)
	if dt <= silentGap {
		return short + l.PositionSlack
	}
	far := reach(v0+speedSlack, dt, l.MaxSpeed, l.MaxAcceleration)
	return math.Max(short, far) + l.PositionSlack
}

// stallGap is how long, s, the run loop may go without running before the host
// counts the time as a stall of its own: the loop wakes at least every
// janitorPeriod, and a host loaded with 512 tanks was seen to wake at most 1.05 s
// apart; a stopped process, a long garbage collection pause or a virtual machine's
// stolen time stop it for longer.
const stallGap = 1.5

// stallDrain is how long after a stall, s, what arrives may still have waited
// through it: the connections' readers empty the socket buffers and the input
// queue that filled meanwhile.
const stallDrain = 0.25

// stall is the host's last stall: the run loop ran at from (host-clock s), then not
// again until to. What arrived from from to stallDrain after to may have been sent
// any time since from, so the host does not hold it to its arrival as it does the
// rest: a player's silence, its rates and its updates' stamps are not measured over
// the stall (match.awake, match.heldByStall).
type stall struct{ from, to float64 }

// awake records that the run loop runs at host time now, and a stall if it did not
// run for stallGap before. Only on the system clock: a test's manual clock jumps
// while the loop waits for it, which is no stall (Host.Pause makes one).
func (m *match) awake(now float64) {
	gap := now - m.alive
	m.alive = math.Max(m.alive, now)
	if _, real := m.h.clock.(systemClock); real && gap > stallGap {
		m.stalled(now-gap, now)
	}
}

// stalled records a stall of the run loop from host time from to to: a player was
// not silent while the host did not listen, so the silence and idleness of every
// member, and the spawn grace of one that has not spawned yet, are counted without
// the stall.
func (m *match) stalled(from, to float64) {
	gap := to - from
	m.stall = stall{from: from, to: to}
	for _, p := range m.order {
		p.lastHeard = math.Min(to, p.lastHeard+gap)
		p.lastPublish = math.Min(to, p.lastPublish+gap)
		p.graceFrom = math.Min(to, p.graceFrom+gap)
	}
	m.h.log.Warn("host stalled", "seconds", gap)
}

// heldByStall reports whether an input that arrived at host time at may have waited
// through the last stall.
func (m *match) heldByStall(at float64) bool {
	return m.stall.to > m.stall.from && at >= m.stall.from && at <= m.stall.to+stallDrain
}
