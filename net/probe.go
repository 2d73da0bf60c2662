package net

import (
	"context"
	"errors"
	"fmt"
	stdnet "net"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/treadline/treadline/net/wire"
)

// ProbeResult is what Probe learned of a host.
type ProbeResult struct {
	// RTT is QUIC's round trip to the host, measured by the handshake.
	RTT time.Duration
	// PassphraseRequired reports what the host's challenge said.
	PassphraseRequired bool
}

// Probe checks that a Treadline host answers at addr with the certificate whose
// fingerprint is fp: it runs the QUIC handshake with the fingerprint pinned, reads
// the host's challenge, and leaves without joining. A list server uses it before it
// lists a registered address, so that the list cannot point players at an address
// that is not that host. ctx bounds it (a few round trips); wrap, if set, wraps the
// socket as ClientConfig.Wrap does.
func Probe(ctx context.Context, addr, fp string, wrap WrapConn) (ProbeResult, error) {
	raddr, err := stdnet.ResolveUDPAddr("udp", addr)
	if err != nil {
		return ProbeResult{}, fmt.Errorf("probe %s: %w", addr, err)
	}
	pc, err := openSocket(":0", wrap)
	if err != nil {
		return ProbeResult{}, fmt.Errorf("probe %s: %w", addr, err)
	}
	tr := &quic.Transport{Conn: pc}
	defer func() { tr.Close(); pc.Close() }()
	conn, err := tr.Dial(ctx, raddr, clientTLS(addr, fp, nil), &quic.Config{
		EnableDatagrams: true, MaxIncomingStreams: 1, MaxIncomingUniStreams: -1,
		HandshakeIdleTimeout: DefaultNoAnswerTimeout,
	})
	if err != nil {
		return ProbeResult{}, fmt.Errorf("probe %s: %w", addr, err)
	}
	defer conn.CloseWithError(codeNormal, "probe done")
	str, err := conn.AcceptStream(ctx)
	if err != nil {
		return ProbeResult{}, fmt.Errorf("probe %s: control stream: %w", addr, err)
	}
	defer context.AfterFunc(ctx, func() { str.SetReadDeadline(time.Now()) })()
	m, err := wire.NewFrameReader(str).Next()
	if err != nil {
		return ProbeResult{}, fmt.Errorf("probe %s: read challenge: %w", addr, err)
	}
	ch, ok := m.(*wire.Challenge)
	if !ok {
		return ProbeResult{}, fmt.Errorf("probe %s: %w", addr, errors.New("the host sent no challenge"))
	}
	return ProbeResult{RTT: conn.ConnectionStats().SmoothedRTT, PassphraseRequired: ch.PassphraseRequired}, nil
}
