// Package clock estimates the offset between a remote peer's clock and the local one,
// as in seed 001's NTP-like sync, and smooths it so that it never jumps during play.
//
// A client sends a request stamped with its local time t0; the host stamps when the
// request arrived (T1) and when it answered (T2); the client notes when the answer
// arrived (t3). Then
//
//	round trip   RTT    = (t3 − t0) − (T2 − T1)
//	offset       remote − local = ((T1 − t0) + (T2 − t3)) / 2
//
// which, for a host that answers at once (T1 = T2 = T), is the seed's
// T − t3 + RTT/2: the remote time, minus the local time, plus half the round trip.
// The estimate is exact when both directions take equally long and off by at most
// RTT/2 otherwise, so the filter trusts the sample with the smallest round trip in a
// window of recent ones, and slews the offset it reports toward that sample's offset
// at a bounded rate (stepping only during the first few samples or for a large jump).
//
// Time is always a parameter: nothing here reads the system clock.
//
//	s := clock.New(clock.Config{})
//	// on each answer:
//	err := s.Add(clock.Sample{LocalSend: t0, RemoteReceive: t1, RemoteSend: t2, LocalReceive: now})
//	// each frame:
//	s.Advance(now)
//	ownerTime := s.ToRemote(now)
//	arrival := s.ToLocal(update.Time)
package clock
