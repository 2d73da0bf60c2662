package combat

import (
	"fmt"
	"math"
	"time"

	"github.com/treadline/treadline/net/wire"
)

// The combat messages on the wire, and the game's values they carry. Actor ids travel
// as 16 bits, as everywhere on the wire.

// FireMessage returns shot s as a wire Fire.
func FireMessage(s Shot) (*wire.Fire, error) {
	if s.Shooter == 0 || s.Shooter > math.MaxUint16 || s.ID > math.MaxUint16 {
		return nil, fmt.Errorf("combat: shot %d of actor %d does not fit the wire", s.ID, s.Shooter)
	}
	return &wire.Fire{Shooter: wire.ActorID(s.Shooter), Shot: uint16(s.ID), Time: s.Time, Origin: s.Origin,
		Direction: s.Direction}, nil
}

// ShotOf returns the shot a wire Fire carries.
func ShotOf(f *wire.Fire) Shot {
	return Shot{ID: uint32(f.Shot), Shooter: uint32(f.Shooter), Time: f.Time, Origin: f.Origin, Direction: f.Direction}
}

// QuantizeShot returns s as every peer will decode it from its Fire message: the
// shooter flies that shell too, so that all peers compute the same flight.
func QuantizeShot(s Shot) (Shot, error) {
	f, err := FireMessage(s)
	if err != nil {
		return s, err
	}
	var buf [64]byte
	b, err := f.Append(buf[:0])
	if err != nil {
		return s, fmt.Errorf("combat: encode shot: %w", err)
	}
	m, _, err := wire.Parse(b)
	if err != nil {
		return s, fmt.Errorf("combat: decode shot: %w", err)
	}
	return ShotOf(m.(*wire.Fire)), nil
}

// ClaimMessage returns c as a wire HitClaim.
func ClaimMessage(c Claim) (*wire.HitClaim, error) {
	if c.Shooter == 0 || c.Shooter > math.MaxUint16 || c.Target == 0 || c.Target > math.MaxUint16 || c.Shot > math.MaxUint16 {
		return nil, fmt.Errorf("combat: claim of shot %d by %d on %d does not fit the wire", c.Shot, c.Shooter, c.Target)
	}
	m := &wire.HitClaim{Shooter: wire.ActorID(c.Shooter), Shot: uint16(c.Shot), Target: wire.ActorID(c.Target),
		Time: c.Time, Impact: c.Impact, Local: c.Local, Observer: c.Observer, Reckon: c.Reckon.Byte(), Fired: c.Fired.Time, Origin: c.Fired.Origin,
		Direction: c.Fired.Direction}
	for i, a := range c.Applied {
		m.Applied[i] = wire.AppliedUpdate{Update: a.Update, At: a.At}
		if a.Update == 0 {
			m.Applied[i].At = c.Time
		}
	}
	return m, nil
}

// ClaimOf returns the claim a wire HitClaim carries.
func ClaimOf(m *wire.HitClaim) Claim {
	c := Claim{Shooter: uint32(m.Shooter), Shot: uint32(m.Shot), Target: uint32(m.Target), Time: m.Time,
		Impact: m.Impact, Local: m.Local, Observer: m.Observer, Reckon: ReckonModeOf(m.Reckon),
		Fired: Shot{ID: uint32(m.Shot), Shooter: uint32(m.Shooter), Time: m.Fired, Origin: m.Origin, Direction: m.Direction}}
	for i, a := range m.Applied {
		if a.Update != 0 {
			c.Applied[i] = Applied{Update: a.Update, At: a.At}
		}
	}
	return c
}

// EventMessage returns the wire message that carries host event ev.
func EventMessage(ev *Event) (wire.Message, error) {
	switch ev.Kind {
	case EventFire:
		return FireMessage(ev.Shot)
	case EventHit, EventRefused:
		m := &wire.HitResult{Shooter: wire.ActorID(ev.Shot.Shooter), Shot: uint16(ev.Shot.ID), Target: wire.ActorID(ev.Target),
			Time: ev.Time, Damage: ev.Damage, Health: ev.Health, Local: ev.Local,
			Position: ev.Rebuilt.Position, Orientation: ev.Rebuilt.Orientation}
		if ev.Kind == EventRefused {
			m.Verdict = uint8(ev.Reason)
		}
		if m.Orientation.Len() == 0 {
			m.Orientation.W = 1 // refused before any rebuild
		}
		for i, v := range m.Local { // a refusal echoes whatever point was claimed
			if !(math.Abs(v) <= wire.MaxLocal) {
				m.Local[i] = math.Copysign(wire.MaxLocal, v)
				if math.IsNaN(v) {
					m.Local[i] = 0
				}
			}
		}
		return m, nil
	case EventDestroy:
		return &wire.Destroy{Shooter: wire.ActorID(ev.Shot.Shooter), Shot: uint16(ev.Shot.ID), Target: wire.ActorID(ev.Target),
			Time: ev.Time}, nil
	case EventScores:
		m := &wire.Scores{Time: ev.Time, Over: ev.Over, Until: ev.Until, Limited: !math.IsInf(ev.Ends, 1), Ends: ev.Ends}
		if !m.Limited {
			m.Ends = 0
		}
		if !ev.Over {
			m.Until = 0
		}
		for i, s := range ev.Scores {
			if i == wire.MaxScoreLines {
				break
			}
			m.Lines = append(m.Lines, wire.ScoreLine{Owner: wire.PlayerID(s.Owner), Name: s.Name, Team: uint8(s.Team),
				Kills: uint16(min(s.Kills, math.MaxUint16)), Deaths: uint16(min(s.Deaths, math.MaxUint16)),
				Hits: uint16(min(s.Hits, math.MaxUint16)), Shots: uint16(min(s.Shots, math.MaxUint16)), Ping: pingCode(s)})
		}
		return m, nil
	}
	return nil, fmt.Errorf("combat: combat event kind %d has no message", ev.Kind)
}

// EventOf returns the combat event a wire message carries, and false when it is not a
// combat message from the host.
func EventOf(m wire.Message) (Event, bool) {
	switch x := m.(type) {
	case *wire.Fire:
		s := ShotOf(x)
		return Event{Kind: EventFire, Time: x.Time, Shot: s}, true
	case *wire.HitResult:
		ev := Event{Kind: EventHit, Time: x.Time, Shot: Shot{ID: uint32(x.Shot), Shooter: uint32(x.Shooter)},
			Target: uint32(x.Target), Local: x.Local, Damage: x.Damage, Health: x.Health,
			Rebuilt: HullPose{Actor: uint32(x.Target), Position: x.Position, Orientation: x.Orientation}}
		if x.Verdict != 0 {
			ev.Kind, ev.Reason = EventRefused, Reason(x.Verdict)
		}
		return ev, true
	case *wire.Destroy:
		return Event{Kind: EventDestroy, Time: x.Time, Shot: Shot{ID: uint32(x.Shot), Shooter: uint32(x.Shooter)},
			Target: uint32(x.Target)}, true
	case *wire.Scores:
		ev := Event{Kind: EventScores, Time: x.Time, Over: x.Over, Until: x.Until, Ends: math.Inf(1)}
		if x.Limited {
			ev.Ends = x.Ends
		}
		for _, l := range x.Lines {
			ev.Scores = append(ev.Scores, Score{Owner: uint32(l.Owner), Name: l.Name, Team: int(l.Team),
				Kills: int(l.Kills), Deaths: int(l.Deaths), Hits: int(l.Hits), Shots: int(l.Shots)})
			ev.Scores[len(ev.Scores)-1].Link, ev.Scores[len(ev.Scores)-1].RTT = linkOf(l.Ping)
		}
		return ev, true
	}
	return Event{}, false
}

// pingCode is line s's link as a wire.ScoreLine.Ping: the round trip in ms (at
// least 1, at most wire.PingMax), wire.PingHost, wire.PingBot, or 0 when unknown.
func pingCode(s Score) uint16 {
	switch s.Link {
	case LinkMeasured:
		ms := int64(math.Round(float64(s.RTT) / float64(time.Millisecond)))
		return uint16(min(max(ms, 1), wire.PingMax))
	case LinkHost:
		return wire.PingHost
	case LinkBot:
		return wire.PingBot
	}
	return 0
}

// linkOf is what a wire.ScoreLine.Ping says of a line's link.
func linkOf(ping uint16) (Link, time.Duration) {
	switch ping {
	case 0:
		return LinkUnknown, 0
	case wire.PingHost:
		return LinkHost, 0
	case wire.PingBot:
		return LinkBot, 0
	}
	return LinkMeasured, time.Duration(ping) * time.Millisecond
}
