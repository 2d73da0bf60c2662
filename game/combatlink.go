package game

import "fmt"

// CombatLink is the part of a Link that carries combat: shots to every peer through the
// host, hit claims to the host, and the host's authoritative events back. A Match fights
// only on a link that implements it and reports Combat true; on others its tanks cannot
// fire.
type CombatLink interface {
	// Combat reports whether the host referees combat on this link.
	Combat() bool
	// Fire tells the host, and through it every peer, that one of this player's tanks
	// fired s (s.Time on the host's clock).
	Fire(s Shot) error
	// Claim tells the host that one of this player's shells hit a tank on its screen.
	Claim(c Claim) error
	// PollCombat appends the combat events that arrived since the last call (other
	// peers' shots, the host's hits, destroys, refusals and scoreboards) and returns
	// buf. It never blocks.
	PollCombat(buf []CombatEvent) []CombatEvent
}

// Combat reports whether the hub referees combat (LoopbackConfig.Referee is set).
func (l *LoopLink) Combat() bool { return l.hub.cfg.Referee != nil }

// Fire hands s to the hub's referee at once (the hub is the host) and, when it is a
// valid shot, sends it to every other link after the configured delay.
func (l *LoopLink) Fire(s Shot) error {
	h := l.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := l.combatUsable(); err != nil {
		return fmt.Errorf("fire: %w", err)
	}
	if a := h.actors[s.Shooter]; a == nil || a.owner != l.id {
		return fmt.Errorf("fire from %d: %w", s.Shooter, ErrNotOwner)
	}
	h.cfg.Referee.Fire(s, h.now)
	h.flushCombat()
	return nil
}

// Claim hands c to the hub's referee at once; the host-to-shooter latency it rebuilds
// the shooter's view with is the configured delay plus half the jitter.
func (l *LoopLink) Claim(c Claim) error {
	h := l.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := l.combatUsable(); err != nil {
		return fmt.Errorf("claim: %w", err)
	}
	if a := h.actors[c.Shooter]; a == nil || a.owner != l.id {
		if a == nil && h.gone[c.Shooter] != l.id {
			return fmt.Errorf("claim from %d: %w", c.Shooter, ErrNotOwner)
		}
	}
	h.cfg.Referee.Claim(c, h.now, ShooterLink{Latency: h.cfg.Delay + h.cfg.Jitter/2})
	h.flushCombat()
	return nil
}

// PollCombat appends the combat events whose delivery time has come.
func (l *LoopLink) PollCombat(buf []CombatEvent) []CombatEvent {
	h := l.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, p := range l.combat {
		if p.at <= h.now {
			buf = append(buf, p.ev)
		} else {
			l.combat[n] = p
			n++
		}
	}
	clear(l.combat[n:])
	l.combat = l.combat[:n]
	return buf
}

func (l *LoopLink) combatUsable() error {
	if l.hub.cfg.Referee == nil {
		return fmt.Errorf("no referee on this hub")
	}
	return l.usable()
}

// loopCombat is a combat event waiting for its delivery time.
type loopCombat struct {
	at float64
	ev CombatEvent
}

// flushCombat sends the referee's new events to every link (a shot's fire event to
// every link but the shooter's) after the configured delay. The caller holds h.mu.
func (h *Loopback) flushCombat() {
	if h.cfg.Referee == nil {
		return
	}
	h.combatBuf = h.cfg.Referee.Events(h.combatBuf[:0])
	for _, ev := range h.combatBuf {
		shooter := uint32(0)
		if ev.Kind == CombatFire {
			if a := h.actors[ev.Shot.Shooter]; a != nil {
				shooter = a.owner
			}
		}
		for _, l := range h.links {
			if !l.closed && l.id != shooter {
				l.combat = append(l.combat, loopCombat{at: h.now + h.cfg.Delay, ev: ev})
			}
		}
	}
	clear(h.combatBuf)
}
