package deadreckon

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

// offsetDecay is how much the Delayed algorithm's estimated clock offset may fall per
// update, in seconds, so that it follows a drifting owner clock or a shorter route.
const offsetDecay = 1e-3

// delayedReceive buffers s for the Delayed algorithm. When s changes what the actor
// shows now (it arrived after the buffer ran dry, or moved the time base), the jump is
// kept as a correction that fades out over the blend time, so the display stays
// continuous.
func (a *Actor) delayedReceive(s State, now float64, reset bool) {
	if a.c.buf == nil {
		a.c.buf = new([delayedBufferLen]State)
	}
	if reset {
		a.c.bufN = 0
		a.c.hasEst = false
		a.c.corr, a.c.corrLeft = mgl64.Vec3{}, 0
	}
	var before mgl64.Vec3
	had := a.c.bufN > 0
	if had {
		before = a.delayedTarget(a.lastNow).Position.Add(a.correction())
	}
	e := s.Time - now
	if a.c.hasEst {
		a.c.estOff = math.Max(e, a.c.estOff-offsetDecay)
	} else {
		a.c.estOff, a.c.hasEst = e, true
	}
	a.bufInsert(s, a.renderTime(a.lastNow))
	if had {
		after := a.delayedTarget(a.lastNow).Position
		a.c.corr = before.Sub(after)
		a.c.corrLeft = 1
	}
}

// correction returns the part of the fading position correction still applied at the
// current blend time.
func (a *Actor) correction() mgl64.Vec3 {
	if a.c.corrLeft <= 0 {
		return mgl64.Vec3{}
	}
	k := 1.0
	if a.dtPos > minBlendTime {
		k = math.Max(0, 1-a.tt/a.dtPos)
	}
	return a.c.corr.Mul(k)
}

// bufInsert adds s to the time-ordered buffer, replacing a state with the same time.
// When the buffer is full, it makes room by evictFor: the updates around the render
// time tr are the ones the display interpolates between, and must stay.
func (a *Actor) bufInsert(s State, tr float64) {
	n := a.c.bufN
	i := n
	for i > 0 && a.c.buf[i-1].Time > s.Time {
		i--
	}
	if i > 0 && a.c.buf[i-1].Time == s.Time {
		a.c.buf[i-1] = s
		return
	}
	if n == delayedBufferLen {
		if i == 0 {
			return // older than everything buffered
		}
		b, keep := a.evictFor(s.Time, i, tr)
		if !keep {
			return
		}
		copy(a.c.buf[b:n-1], a.c.buf[b+1:n])
		n--
		if b < i {
			i--
		}
	}
	copy(a.c.buf[i+1:n+1], a.c.buf[i:n])
	a.c.buf[i] = s
	a.c.bufN = n + 1
}

// evictFor picks which update a full buffer drops for a new one at time t that goes
// in at index i (0 < i ≤ bufN), the render time at tr: the oldest once the render
// time has passed the one after it (the oldest no longer brackets it), or else the
// one, the new one included but never the first or the newest, whose neighbours lie
// closest together, so that the hole it leaves in the path is the shortest. It
// returns the index in the buffer to drop, and keep false when the new update is the
// one dropped. Dropping the oldest regardless, as the buffer once did, dropped the
// very updates the display stood between whenever more than a buffer's worth arrived
// within the delay (a replay hands a heartbeat's worth ahead; a turn's end and its
// copies come a frame or two apart), and the display froze on the oldest one left,
// up to the delay ahead of the actor.
func (a *Actor) evictFor(t float64, i int, tr float64) (b int, keep bool) {
	buf := a.c.buf
	n := a.c.bufN
	if buf[1].Time <= tr {
		return 0, true
	}
	// at is the time of entry j of the buffer with the new update inserted at i.
	at := func(j int) float64 {
		switch {
		case j < i:
			return buf[j].Time
		case j == i:
			return t
		}
		return buf[j-1].Time
	}
	best, bestGap := -1, math.Inf(1)
	for j := 1; j < n; j++ { // entries 1 … n-1 of n+1: neither the first nor the newest
		if g := at(j+1) - at(j-1); g < bestGap {
			best, bestGap = j, g
		}
	}
	switch {
	case best == i:
		return 0, false
	case best > i:
		return best - 1, true
	}
	return best, true
}

// renderTime returns the owner-clock time the Delayed algorithm shows at local time
// now: the owner's clock (from SetClockOffset, or else estimated from the least
// delayed update, which then adds the one-way latency to the delay) minus Delay.
func (a *Actor) renderTime(now float64) float64 {
	off := a.c.estOff
	if a.c.hasOffset {
		off = a.c.clockOffset
	}
	return now + off - a.c.cfg.Delay
}

// delayedTarget returns the buffered path at local time now: a cubic Hermite between
// the two updates around the render time (positions and velocities at both ends), the
// first update before the buffer starts, and the newest update projected when the
// buffer has run dry.
func (a *Actor) delayedTarget(now float64) State {
	n := a.c.bufN
	if n == 0 || a.c.buf == nil {
		return a.lk
	}
	tr := a.renderTime(now)
	if tr <= a.c.buf[0].Time {
		s := a.c.buf[0]
		s.Time = tr
		return s
	}
	if tr >= a.c.buf[n-1].Time {
		return projectState(&a.c.buf[n-1], tr-a.c.buf[n-1].Time, &a.hz)
	}
	i := n - 2
	for i > 0 && a.c.buf[i].Time > tr {
		i--
	}
	s0, s1 := &a.c.buf[i], &a.c.buf[i+1]
	h := s1.Time - s0.Time
	u := (tr - s0.Time) / h
	u2, u3 := u*u, u*u*u
	h00 := 2*u3 - 3*u2 + 1
	h10 := u3 - 2*u2 + u
	h01 := -2*u3 + 3*u2
	h11 := u3 - u2
	// Derivatives of the basis, for the velocity along the curve.
	d00 := (6*u2 - 6*u) / h
	d10 := 3*u2 - 4*u + 1
	d01 := (-6*u2 + 6*u) / h
	d11 := 3*u2 - 2*u
	out := *s1
	out.Time = tr
	for k := 0; k < 3; k++ {
		out.Position[k] = h00*s0.Position[k] + h10*h*s0.Velocity[k] + h01*s1.Position[k] + h11*h*s1.Velocity[k]
		out.Velocity[k] = d00*s0.Position[k] + d10*s0.Velocity[k] + d01*s1.Position[k] + d11*s1.Velocity[k]
		out.Acceleration[k] = s0.Acceleration[k] + (s1.Acceleration[k]-s0.Acceleration[k])*u
	}
	out.Orientation = geom.SlerpShort(s0.Orientation, s1.Orientation, u)
	for k := 0; k < s1.NumArticulations; k++ {
		a1 := s1.Articulations[k]
		if k >= s0.NumArticulations {
			continue
		}
		a0 := s0.Articulations[k]
		end := a0.Angle + geom.WrapAngle(a1.Angle-a0.Angle)
		out.Articulations[k].Angle = geom.WrapAngle(h00*a0.Angle + h10*h*a0.Rate + h01*end + h11*h*a1.Rate)
		out.Articulations[k].Rate = a0.Rate + (a1.Rate-a0.Rate)*u
	}
	return out
}

// reckonDelayed sets the reckoned pose from the buffered path plus the fading correction.
func (a *Actor) reckonDelayed() {
	t := a.delayedTarget(a.lastNow)
	t.Position = t.Position.Add(a.correction())
	a.rk.pos, a.rk.rot = t.Position, t.Orientation
	for i := 0; i < MaxArticulations; i++ {
		v := t.Articulations[i].Angle
		if lim := a.c.cfg.ArticulationLimits[i]; lim.Limited() {
			v = math.Max(lim.Min, math.Min(lim.Max, v))
		}
		a.rk.art[i] = v
	}
}
