package net

import (
	"context"
	stdnet "net"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/treadline/treadline/internal/poll"
	"github.com/treadline/treadline/net/internal/admission"
)

// gateListener runs a bare QUIC listener on loopback behind a handshake gate, with
// the host's certificate setup, accepting and holding every connection.
func gateListener(t *testing.T, g *admission.Gate, idle time.Duration) stdnet.Addr {
	t.Helper()
	pc, err := stdnet.ListenUDP("udp", &stdnet.UDPAddr{IP: stdnet.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := selfSigned(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	tr := &quic.Transport{Conn: pc}
	g.Install(tr)
	ln, err := tr.Listen(hostTLS(cert), &quic.Config{HandshakeIdleTimeout: idle})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			conn, err := ln.Accept(context.Background())
			if err != nil {
				return
			}
			g.Accepted(conn.Context())
		}
	}()
	t.Cleanup(func() { ln.Close(); tr.Close(); pc.Close(); <-done })
	return pc.LocalAddr()
}

// TestGateOverQUIC runs the handshake gate in quic-go's hooks against real packets:
// hellos and forged Initials, Retries followed or not, and the caps. The gate's
// decisions themselves are tested in package admission.
func TestGateOverQUIC(t *testing.T) {
	t.Parallel() // real time, over QUIC: runs beside the others
	for _, tc := range []struct {
		name                         string
		retryAbove, total, per, shed int
		hellos                       int
		followRetry, forged          bool
		wantInFlight                 int
		wantRetries, wantRefused     uint64
	}{
		{"hellos below the Retry threshold start handshakes", 100, 100, 100, 0, 3, false, false, 3, 0, 0},
		{"forged Initials below the threshold cost a handshake each", 100, 100, 100, 0, 3, false, true, 3, 0, 0},
		{"past the threshold, hellos get a Retry and no state", 2, 100, 100, 0, 5, false, false, 2, 3, 0},
		{"forged Initials past the threshold get a Retry", 1, 100, 100, 0, 4, false, true, 1, 3, 0},
		{"Retry always: a client that follows it gets in", 0, 100, 100, 0, 3, true, false, 3, 3, 0},
		{"per-prefix share refuses past it when nothing more is free", 100, 4, 2, 0, 5, false, false, 2, 0, 3},
		{"global cap refuses when nothing may be evicted", 100, 3, 100, 0, 5, false, false, 3, 0, 2},
		{"global cap sheds stalled handshakes for newcomers", 100, 3, 100, 10, 5, false, true, 3, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := admission.NewGate(admission.GateLimits{RetryAbove: tc.retryAbove, MaxTotal: tc.total, MaxPer: tc.per,
				MaxShed: tc.shed, Rate: 1000, Burst: 1000}, func() float64 { return 0 }, func(c *quic.Conn) { c.CloseWithError(0, "") })
			addr := gateListener(t, g, 3*time.Second)
			s := newAttackSocket(t, "127.0.0.1", addr, tc.followRetry)
			if tc.forged {
				for range tc.hellos {
					s.send(forgedInitial())
				}
			} else {
				scid := randomBytes(8)
				hello := clientHello(t, scid)
				for range tc.hellos {
					s.send(sealedInitial(hello, randomBytes(8), scid, nil))
				}
				if tc.followRetry {
					for range tc.hellos {
						select {
						case r := <-s.retries:
							s.send(sealedInitial(hello, r.scid, scid, r.token))
						case <-time.After(2 * time.Second):
							t.Fatal("no Retry")
						}
					}
				}
			}
			want := func(st admission.GateStats) bool {
				return st.InFlight == tc.wantInFlight && st.Retries == tc.wantRetries &&
					st.RefusedPrefix+st.RefusedTotal == tc.wantRefused
			}
			if !poll.Within(2*time.Second, func() bool { return want(g.Snapshot()) }) {
				t.Errorf("gate %+v, want %d in flight, %d retries, %d refused", g.Snapshot(),
					tc.wantInFlight, tc.wantRetries, tc.wantRefused)
			}
			// A started handshake answers a real hello with its flight (within 3× what
			// it received); a forged Initial never decrypts and gets no answer.
			if r := s.reflection(); r > 3 {
				t.Errorf("host sent %.2f× the bytes it received", r)
			}
			if wantAnswer := !tc.forged || tc.wantRetries > 0; wantAnswer {
				if !poll.Within(time.Second, func() bool { return s.received.Load() > 0 }) {
					t.Error("host never answered")
				}
			} else if n := s.received.Load(); n > 0 {
				t.Errorf("host answered forged Initials with %d bytes", n)
			}
		})
	}
}
