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
// ("silent") at once, a leave once no respawn followed it.
func (m *Match) depart(t *tank, now float64, reason string) {
	m.gone = append(m.gone, Departure{ID: t.id, Name: t.name, Team: t.team, Reason: reason, Time: now,
		Stale: t.actor != nil && t.actor.Stale(now)})
	n := Notice{Kind: NoticeLeave, Who: t.name, Team: t.team, Text: reason}
	switch reason {
	case "silent":
		n.Kind, n.Text = NoticeTimeout, ""
		m.notify(n) // this peer gave up on it: no respawn follows
		return
	case "left":
		n.Text = ""
	}
	// A respawn is a despawn at once followed by a spawn of the same owner and name:
	// the leave waits respawnGrace for that spawn, which cancels both notices.
	m.leaving = append(m.leaving, pendingLeave{owner: t.owner, name: t.name, at: now, n: n})
}

// respawnGrace is how long a leave notice waits for the same tank's respawn, s.
const respawnGrace = 1.0

// pendingLeave is a leave notice held back for respawnGrace.
type pendingLeave struct {
	owner uint32
	name  string
	at    float64
	n     Notice
}

// respawned reports whether a tank of owner called name left within respawnGrace,
// and forgets that leave: t's arrival is a respawn, neither a leave nor a join.
func (m *Match) respawned(owner uint32, name string) bool {
	for i, p := range m.leaving {
		if p.owner == owner && p.name == name {
			m.leaving = append(m.leaving[:i], m.leaving[i+1:]...)
			return true
		}
	}
	return false
}

// flushLeaves announces the leaves no respawn followed within respawnGrace of now.
func (m *Match) flushLeaves(now float64) {
	k := 0
	for _, p := range m.leaving {
		if now-p.at >= respawnGrace {
			m.notify(p.n)
			continue
		}
		m.leaving[k] = p
		k++
	}
	m.leaving = m.leaving[:k]
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
