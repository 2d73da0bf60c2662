package lab

import (
	"fmt"
	"math"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net/wire"
)

// pathAlgo is the name of the algorithm that publishes by path where the truth
// follows a route: the game's dead reckoning with deadreckon.Path.
const pathAlgo = "path"

// usesPath reports whether the run's algorithm is the path algorithm.
func (r *simRun) usesPath() bool { return r.s.Algo.Algorithm == deadreckon.Path }

// pathOwner is the owner's side of a path run: a deadreckon.PathPublisher with the
// game's publisher off the route, fed the truth and its progress along the route.
type pathOwner struct {
	pub       *deadreckon.PathPublisher
	routeSent bool
}

// newPathOwner returns the owner of a path run publishing as dr does off the route.
func newPathOwner(dr deadreckon.PublisherConfig, seed uint64) *pathOwner {
	return &pathOwner{pub: deadreckon.NewPathPublisher(deadreckon.PathPublisherConfig{Publisher: dr}, seed)}
}

// pathPublish is the owner's side of a frame of a path run: the route once (on the
// reliable stream, which the lab models as the link's base latency without loss),
// then a Progress or a State as the PathPublisher decides, wire-encoded unless the
// setup sends them exact. The route's bytes count among the measured ones wherever
// it is sent.
func (r *simRun) pathPublish(sc *scratch, truth Pose, i int, measured bool) {
	t := truth.Time
	o := r.pathOwn
	if r.p.Route != nil && !o.routeSent {
		id := o.pub.SetRoute(r.p.Route)
		o.routeSent = true
		m := routeMessage(id, r.p.Route)
		r.measuredBytes += m.Length()
		r.net.SendRoute(id, r.p.Route, t)
	}
	sample := PathSampleOf(truth, t+ownerClockOffset)
	if r.p.Route != nil && i < len(r.p.RouteS) && !math.IsNaN(r.p.RouteS[i]) {
		sample.OnRoute, sample.S = true, r.p.RouteS[i]
	}
	u := o.pub.Update(sample)
	switch {
	case u.HasProgress:
		prog, size := u.Progress, wire.ProgressSize(u.Progress.NumArticulations)
		if !r.s.Exact {
			var err error
			if prog, size, err = sc.wire.progressRoundTrip(prog); err != nil {
				r.noteEncodeError(err)
				return
			}
		}
		if r.s.UpdateBytes > 0 {
			size = r.s.UpdateBytes
		}
		r.countSent(size, measured, truth)
		r.net.SendProgress(prog, t)
	case u.Decision != deadreckon.NoUpdate:
		st, size := u.State, defaultUpdateBytes
		if !r.s.Exact {
			var err error
			if st, size, err = sc.wire.roundTrip(st); err != nil {
				r.noteEncodeError(err)
				return
			}
		}
		if r.s.UpdateBytes > 0 {
			size = r.s.UpdateBytes
		}
		r.countSent(size, measured, truth)
		r.net.Send(st, truth.Break, t)
	}
}

// PathSampleOf returns the owner's sample of pose p at owner time t, off any route.
func PathSampleOf(p Pose, t float64) deadreckon.PathSample {
	return deadreckon.PathSample{Sample: deadreckon.Sample{Time: t, Position: p.Position, Orientation: p.Orientation, Break: p.Break}}
}

// noteEncodeError counts a message the wire encoder refused.
func (r *simRun) noteEncodeError(err error) {
	r.encodeErrs++
	if r.encodeErr == nil {
		r.encodeErr = err
	}
}

// countSent counts a message of size bytes put on the link.
func (r *simRun) countSent(size int, measured bool, truth Pose) {
	r.sent++
	if measured {
		r.measuredSent++
		r.measuredBytes += size
		if r.rec != nil {
			r.rec.Updates = append(r.rec.Updates, truth.Position)
		}
	}
}

// routeMessage is the wire Route message publishing route id of r.
func routeMessage(id uint16, r *deadreckon.Route) *wire.Route {
	m := &wire.Route{Actor: 1, Route: id, Waypoints: r.Waypoints()}
	if r.Closed() {
		m.Flags |= wire.RouteClosed
	}
	if r.Spline() {
		m.Flags |= wire.RouteSpline
	}
	return m
}

// progressRoundTrip encodes p as a Progress datagram, decodes it as the remote
// would, and returns the decoded progress and the datagram's size.
func (c *wireCodec) progressRoundTrip(p deadreckon.Progress) (deadreckon.Progress, int, error) {
	c.seq++
	m := wire.Progress{Actor: 1, Seq: c.seq, Progress: p}
	b, err := m.Append(c.buf[:0])
	if err != nil {
		return deadreckon.Progress{}, 0, fmt.Errorf("encode progress: %w", err)
	}
	c.buf = b
	got, _, err := wire.Parse(b)
	if err != nil {
		return deadreckon.Progress{}, 0, fmt.Errorf("decode progress: %w", err)
	}
	return got.(*wire.Progress).Progress, len(b), nil
}

// pathReceive applies a delivered Progress or Route to the remote actor.
func (r *simRun) pathReceive(d Delivery) error {
	if d.Route != nil {
		r.actor.SetRoute(d.RouteID, d.Route)
		return nil
	}
	return r.actor.ReceiveProgress(d.Progress, d.Arrival)
}
