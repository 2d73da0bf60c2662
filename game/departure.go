package game

// DepartureShown is how long a departed tank stays in Snapshot.Departures, s.
const DepartureShown = 10.0

// Departure is a remote tank that left the match.
type Departure struct {
	// ID, Name and Team identify the tank.
	ID   uint32
	Name string
	Team int
	// Reason says why: the host's despawn reason ("left", "timed out", …), or
	// "silent" when this peer stopped waiting for it (Config.RemoveAfter).
	Reason string
	// Time is when it left, on the match clock, s.
	Time float64
	// Stale reports that it was already shown stale when it left: its owner had
	// been silent for longer than its reckoning's StaleAfter.
	Stale bool
}

// depart records that remote tank t leaves the match at now for reason, and
// announces it in the notice feed: a timeout when this peer stopped waiting
// ("silent"), a leave otherwise.
func (m *Match) depart(t *tank, now float64, reason string) {
	m.gone = append(m.gone, Departure{ID: t.id, Name: t.name, Team: t.team, Reason: reason, Time: now,
		Stale: t.actor != nil && t.actor.Stale(now)})
	n := Notice{Kind: NoticeLeave, Who: t.name, Team: t.team, Text: reason}
	switch reason {
	case "silent":
		n.Kind, n.Text = NoticeTimeout, ""
	case "left":
		n.Text = ""
	}
	m.notify(n)
}

// departures appends the departures of the last DepartureShown seconds to dst,
// forgetting older ones.
func (m *Match) departures(dst []Departure) []Departure {
	k := 0
	for k < len(m.gone) && m.last-m.gone[k].Time > DepartureShown {
		k++
	}
	if k > 0 {
		m.gone = append(m.gone[:0], m.gone[k:]...)
	}
	return append(dst, m.gone...)
}
