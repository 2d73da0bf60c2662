package net

import (
	"context"
	"fmt"
	"net/netip"
	"sync/atomic"
	"testing"

	"github.com/treadline/treadline/net/wire"
)

// pipeAddrs numbers the addresses pipeJoin gives its players, so that the
// per-address cap treats each as another machine.
var pipeAddrs atomic.Uint32

// pipeJoin joins h as cfg.Name over an in-process pipe instead of QUIC: the host
// admits it through the same step as a QUIC join (name, reconnect token, caps) and
// treats it as any remote player (rate limits, timeout), and the client runs the same
// run loop. No handshake, no passphrase, no real-time network: with a manual clock
// in cfg and the host's, what the test sees follows that clock. The test closes it.
func pipeJoin(t *testing.T, h *Host, cfg ClientConfig) *Client {
	t.Helper()
	c, err := pipeDial(h, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// pipeDial is pipeJoin's join, returning the refusal as an error wrapping ErrRefused.
func pipeDial(h *Host, cfg ClientConfig) (*Client, error) {
	cfg, err := populateClientConfig(cfg)
	if err != nil {
		return nil, err
	}
	n := pipeAddrs.Add(1)
	addr := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(n >> 16), byte(n >> 8), byte(n)}), 32)
	var (
		p      *member
		reason = wire.RefuseOther
		text   = "host closed"
	)
	h.call(func() {
		if p, reason, text = h.m.admit(nil, cfg.Name, cfg.ReconnectToken, addr, cfg.Observe); p != nil {
			p.conn = newPipe(h, p)
		}
	})
	if p == nil {
		return nil, fmt.Errorf("%w: %v: %s", ErrRefused, reason, text)
	}
	pp := p.conn.(*pipe)
	h.wg.Add(1)
	go p.sendLoop()
	// The first frame is the JoinAccepted a QUIC client reads before its session.
	b, err := pp.ctrl.pop(context.Background(), pp.done)
	if err != nil {
		return nil, fmt.Errorf("join over a pipe: %w", err)
	}
	m, _, err := wire.Parse(b[wire.FrameHeaderSize:])
	acc, ok := m.(*wire.JoinAccepted)
	if err != nil || !ok {
		return nil, fmt.Errorf("join over a pipe: %T, %v; want a JoinAccepted", m, err)
	}
	c := newClient(cfg, pipeClient{pp}, acc.Player, h.match, cfg.Clock.Now())
	c.token = ReconnectToken(acc.Token)
	return c, nil
}
