package lab

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net/wire"
)

// defaultUpdateBytes is the size of one update without articulations on the wire, in
// bytes: the payload of a StateBatch datagram holding one update (batch header,
// update record). Transport headers (QUIC, UDP, IP) are not counted.
const defaultUpdateBytes = wire.BatchHeaderSize + wire.MinUpdateSize

// PublishConfig says when the owner publishes. The zero value is threshold publishing
// with deadreckon's publisher defaults.
type PublishConfig struct {
	// Rate, when positive, publishes at exactly this many updates per second, Hz,
	// whatever the error; the thresholds are then unused.
	Rate float64
	// PosThreshold is the position error that triggers an update, m; if zero,
	// deadreckon.DefaultPositionThreshold.
	PosThreshold float64
	// RotThreshold is the orientation error that triggers an update, rad; if zero,
	// deadreckon.DefaultOrientationThreshold.
	RotThreshold float64
	// MinInterval is the shortest time between updates, s; if zero,
	// deadreckon.DefaultMinInterval. It is also the remote's expected interval ΔT.
	MinInterval float64
	// Heartbeat is the longest time between updates, s; if zero,
	// deadreckon.DefaultPublishHeartbeat.
	Heartbeat float64
	// NoAcceleration publishes zero acceleration.
	NoAcceleration bool
}

// withDefaults fills zero fields and rejects values that cannot configure a publisher.
func (c PublishConfig) withDefaults() (PublishConfig, error) {
	for _, f := range []struct {
		name, unit string
		v          float64
	}{{"rate", "Hz", c.Rate}, {"position threshold", "m", c.PosThreshold}, {"rotation threshold", "rad", c.RotThreshold},
		{"minimum interval", "s", c.MinInterval}, {"heartbeat", "s", c.Heartbeat}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return c, fmt.Errorf("publish: %s %v %s is not a non-negative number", f.name, f.v, f.unit)
		}
	}
	if c.Rate > 1000 {
		return c, fmt.Errorf("publish: rate %v Hz is above 1000 Hz", c.Rate)
	}
	if c.PosThreshold == 0 {
		c.PosThreshold = deadreckon.DefaultPositionThreshold
	}
	if c.RotThreshold == 0 {
		c.RotThreshold = deadreckon.DefaultOrientationThreshold
	}
	if c.MinInterval == 0 {
		c.MinInterval = deadreckon.DefaultMinInterval
	}
	if c.Heartbeat == 0 {
		c.Heartbeat = deadreckon.DefaultPublishHeartbeat
	}
	return c, nil
}

// interval returns the expected time between updates, s: the remote's ΔT.
func (c PublishConfig) interval() float64 {
	if c.Rate > 0 {
		return 1 / c.Rate
	}
	return c.MinInterval
}

// describe says in words how the owner publishes.
func (c PublishConfig) describe() string {
	acc := ""
	if c.NoAcceleration {
		acc = ", zero acceleration"
	}
	if c.Rate > 0 {
		return fmt.Sprintf("fixed %g updates/s%s", c.Rate, acc)
	}
	return fmt.Sprintf("on error over %g m or %g° (at most every %s, heartbeat %g s)%s",
		c.PosThreshold, mgl64.RadToDeg(c.RotThreshold), ms(c.MinInterval), c.Heartbeat, acc)
}

// owner is the publishing side of a run: a deadreckon.Publisher fed the true pose
// each frame. At a fixed rate the publisher only estimates velocity and acceleration
// from the rendered frames and is asked for a full update on schedule.
type owner struct {
	pub  *deadreckon.Publisher
	rate float64
	sent int // updates published so far at the fixed rate
}

// never is a threshold no error reaches, for fixed-rate publishing.
const never = 1e12

func newOwner(c PublishConfig, a Algo, seed uint64, paper bool) *owner {
	// The owner reckons its own updates as the remote does, without latency. A delayed
	// remote has no present-time view to compare with, so its owner measures against
	// projective velocity blending.
	reckon := deadreckon.Config{Algorithm: a.Algorithm, UpdateInterval: c.interval(), Heartbeat: c.Heartbeat}
	if paper {
		paperReckon(&reckon)
	}
	if a.Algorithm == deadreckon.Delayed {
		reckon.Algorithm = deadreckon.ProjectiveVelocityBlend
	}
	pc := deadreckon.PublisherConfig{
		Reckon:               reckon,
		PositionThreshold:    c.PosThreshold,
		ToleranceLinear:      deadreckon.Off,
		OrientationThreshold: c.RotThreshold,
		MinInterval:          c.MinInterval,
		Heartbeat:            c.Heartbeat,
		HeartbeatJitter:      deadreckon.Off,
		NoAcceleration:       c.NoAcceleration,
	}
	if c.Rate > 0 {
		pc.PositionThreshold, pc.OrientationThreshold, pc.ArticulationThreshold = never, never, never
		pc.MaxTolerance = never
		pc.MinInterval = 0.5 / c.Rate
		pc.Heartbeat = never
		pc.RepeatChange = deadreckon.Off
		pc.StartSpeed, pc.Budget = deadreckon.Off, deadreckon.Off // exactly the rate
	}
	return &owner{pub: deadreckon.NewPublisher(pc, seed), rate: c.Rate}
}

// update feeds the frame's true pose, stamped ownerTime on the owner's clock, and
// reports the state to send and whether it is a continuity break, if the owner
// publishes this frame.
func (o *owner) update(p Pose, ownerTime float64) (deadreckon.State, bool, bool) {
	s := deadreckon.Sample{Time: ownerTime, Position: p.Position, Orientation: p.Orientation, Break: p.Break}
	if o.rate > 0 && p.Time >= float64(o.sent)/o.rate-1e-9 {
		s.Full = true
	}
	d, st := o.pub.Update(s)
	if d == deadreckon.NoUpdate {
		return deadreckon.State{}, false, false
	}
	o.sent++
	return st, p.Break, true
}

// wireCodec sends states through the real wire encoding and back, reusing its
// buffers.
type wireCodec struct {
	w   *wire.BatchWriter
	out []wire.Update
	seq uint16
	buf []byte // a Progress datagram (pathrun.go)
}

// roundTrip encodes st as a one-update StateBatch datagram, decodes it as the remote
// would, and returns the decoded state and the datagram's size.
func (c *wireCodec) roundTrip(st deadreckon.State) (deadreckon.State, int, error) {
	if c.w == nil {
		c.w = wire.NewBatchWriter(0)
	}
	c.w.Reset()
	c.seq++
	u := wire.Update{Actor: 1, Seq: c.seq, State: st}
	if err := c.w.Add(&u); err != nil {
		return deadreckon.State{}, 0, fmt.Errorf("encode update: %w", err)
	}
	b := c.w.Bytes()
	out, rejected, err := wire.DecodeBatch(c.out[:0], b)
	c.out = out
	if err != nil || rejected > 0 || len(out) != 1 {
		return deadreckon.State{}, 0, fmt.Errorf("decode update: %d decoded, %d rejected: %v", len(out), rejected, err)
	}
	return out[0].State, len(b), nil
}

// paperReckon makes c reckon as Murphy's paper does: no projection horizon, and the
// position lerped by T̂ itself.
func paperReckon(c *deadreckon.Config) {
	c.AccelerationHorizon, c.MaxExtrapolation = math.Inf(1), math.Inf(1)
	c.LinearBlend = true
}
