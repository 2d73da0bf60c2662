package game

import (
	"fmt"

	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/net/wire"
)

// claimCopies is how many times a hit claim is sent, on consecutive frames: it goes as
// a datagram, so that a lost one costs no retransmission; the host judges the first
// to arrive.
const claimCopies = 3

// pendingClaim is a hit claim still to be sent again.
type pendingClaim struct {
	msg  *wire.HitClaim
	left int
}

// sendClaim sends c now and on the next frames.
func (c *matchCombat) sendClaim(claim combat.Claim) error {
	msg, err := combat.ClaimMessage(claim)
	if err != nil {
		return err
	}
	if err := c.link.Send(msg); err != nil {
		return fmt.Errorf("claim: %w", err)
	}
	c.claims = append(c.claims, pendingClaim{msg: msg, left: claimCopies - 1})
	return nil
}

// resendClaims sends each pending claim's next copy.
func (c *matchCombat) resendClaims() {
	n := 0
	for _, p := range c.claims {
		_ = c.link.Send(p.msg) // a copy lost here is one of several
		if p.left--; p.left > 0 {
			c.claims[n] = p
			n++
		}
	}
	clear(c.claims[n:])
	c.claims = c.claims[:n]
}

// combatMessage applies a game message the host's Judge sent (it arrives with the
// other events, in Step's network phase).
func (m *Match) combatMessage(msg wire.Message, now float64) {
	if m.observersMessage(msg) || m.zonesMessage(msg) || m.combat == nil || msg == nil {
		return
	}
	if sc, ok := msg.(*wire.Scores); ok { // a long board comes in pages
		if msg, ok = m.combat.pages.Add(sc); !ok {
			return
		}
	}
	ev, ok := combat.EventOf(msg)
	if !ok {
		return
	}
	m.combatEvent(&ev, now, now+m.clockOffset())
}
