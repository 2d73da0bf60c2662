package net

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	stdnet "net"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/treadline/treadline/internal/units"
	"github.com/treadline/treadline/net/clock"
	"github.com/treadline/treadline/net/wire"
)

// Join errors. Callers tell them apart with errors.Is.
var (
	// ErrRefused reports that the host turned the join down; the error text says why.
	ErrRefused = errors.New("join refused")
	// ErrWrongPassphrase reports a refusal for a wrong or missing passphrase. It
	// wraps ErrRefused.
	ErrWrongPassphrase = fmt.Errorf("%w: wrong passphrase", ErrRefused)
)

// populateClientConfig fills in cfg's defaults and checks it.
func populateClientConfig(cfg ClientConfig) (ClientConfig, error) {
	if cfg.Name == "" {
		cfg.Name = "player"
	}
	if err := wire.CheckName(cfg.Name); err != nil {
		return cfg, fmt.Errorf("player name: %w", err)
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = DefaultJoinTimeout
	}
	if cfg.NoAnswerTimeout == 0 {
		cfg.NoAnswerTimeout = DefaultNoAnswerTimeout
	}
	if cfg.SyncInterval == 0 {
		cfg.SyncInterval = DefaultSyncInterval
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.RequestTimeout < 0 || cfg.NoAnswerTimeout < 0 || cfg.SyncInterval < 0 || cfg.Timeout < 0 {
		return cfg, errors.New("negative RequestTimeout, NoAnswerTimeout, SyncInterval or Timeout")
	}
	if cfg.Clock == nil {
		cfg.Clock = newSystemClock()
	}
	return cfg, nil
}

// Dial joins the match hosted at cfg.Addr: it checks the host's certificate (pinned
// fingerprint or trust on first use), proves the passphrase and waits for the host to
// admit the player. ctx bounds the whole join; the session then lives until Close.
// A failed join returns a *JoinError, whose Sentence says to a player what happened.
func Dial(ctx context.Context, cfg ClientConfig) (*Client, error) {
	if cfg.Addr == "" {
		return nil, errors.New("dial: no host address")
	}
	cfg, err := populateClientConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("dial: %w", err)
	}
	var known *knownHosts
	if (cfg.Fingerprint == "" || cfg.Remember) && cfg.KnownHosts != "-" {
		path := cfg.KnownHosts
		if path == "" {
			path = DefaultKnownHostsPath()
		}
		if path == "" {
			return nil, errors.New("dial: no fingerprint given and no user config directory for trust on first use")
		}
		known = &knownHosts{path: path}
	}
	raddr, err := stdnet.ResolveUDPAddr("udp", cfg.Addr)
	if err != nil {
		return nil, &JoinError{Addr: cfg.Addr, Failure: JoinNoAnswer, Err: err}
	}
	sock := cfg.Socket
	if sock == nil {
		if sock, err = openOwnSocket(cfg.Wrap); err != nil {
			return nil, fmt.Errorf("dial: %w", err)
		}
	}
	start := cfg.Clock.Now()
	q := &quicClient{sock: sock, timeout: cfg.RequestTimeout}
	var heard hearing
	id, match, err := q.join(ctx, cfg, raddr, known, &heard, func() float64 { return units.Seconds(cfg.Clock.Now() - start) })
	if err != nil {
		sock.release()
		je := joinError(cfg.Addr, err, heard.heard.Load())
		if cfg.Logger != nil {
			cfg.Logger.Info("join failed", "host", cfg.Addr, "failure", je.Failure, "err", err)
		}
		return nil, je
	}
	c := newClient(cfg, q, id, match, start)
	c.fp, c.token = q.fingerprint(), q.token
	// The answers to the join's clock probes start the clock sync, on the run loop.
	c.call(func() {
		for _, smp := range q.early {
			if c.sync.Add(smp) == nil && !c.s.synced {
				c.s.synced = true
				close(c.synced)
			}
		}
	})
	c.teardown = sock.release
	// Wait for the first clock answer, so that the first Publish is stamped right.
	t := time.NewTimer(cfg.RequestTimeout)
	defer t.Stop()
	select {
	case <-c.synced:
	case <-t.C:
		c.log.Warn("no clock answer from the host yet", "waited", cfg.RequestTimeout)
	case <-ctx.Done():
		c.Close()
		return nil, &JoinError{Addr: cfg.Addr, Failure: JoinFailed, Err: ctx.Err()}
	}
	c.log.Info("joined", "host", cfg.Addr, "player", c.id, "map", c.match.Map)
	return c, nil
}

// quicClient is a client's QUIC connection and control stream: a clientConn.
type quicClient struct {
	sock    *Socket // the client's own, or one it shares
	conn    *quic.Conn
	str     *quic.Stream
	fr      *wire.FrameReader
	timeout time.Duration  // stream write deadline
	token   ReconnectToken // from the host's JoinAccepted
	early   []clock.Sample // clock samples taken during the join
}

// join runs the QUIC handshake and the join exchange, and returns the player id and
// the match settings the host sent. heard learns whether anything came back from the
// host; now is the client clock, for the clock probes sent while waiting. A
// connection the host never answers a probe on within unconfirmed is given up once
// for a fresh one: the host never completed its side of that handshake.
func (q *quicClient) join(ctx context.Context, cfg ClientConfig, raddr *stdnet.UDPAddr, known *knownHosts,
	heard *hearing, now func() float64) (wire.PlayerID, MatchSettings, error) {
	qc := &quic.Config{
		EnableDatagrams: true,
		// Silence before the first packet is noAnswer's to judge; past it, a
		// handshake on the slowest link may go quiet for seconds between
		// retransmissions.
		HandshakeIdleTimeout:       cfg.NoAnswerTimeout,
		MaxIdleTimeout:             2 * cfg.Timeout,
		KeepAlivePeriod:            time.Second,
		MaxIncomingStreams:         1,
		MaxIncomingUniStreams:      -1,
		InitialStreamReceiveWindow: 64 << 10,
		MaxStreamReceiveWindow:     1 << 20,
		Tracer:                     heard.tracer,
	}
	for try := 0; ; try++ {
		start := time.Now()
		conn, took, err := q.handshake(ctx, raddr, func() *tls.Config { return clientTLS(cfg.Addr, cfg.Fingerprint, known) },
			qc, cfg.NoAnswerTimeout, heard)
		if err != nil {
			return 0, MatchSettings{}, err
		}
		q.conn = conn
		if cfg.OnHandshake != nil {
			cfg.OnHandshake()
		}
		// The exchange waits in measured round trips: the handshake gave the first.
		rtt := linkRTT(conn, took)
		wait := stretch(cfg.RequestTimeout, rtt)
		ectx, cancel := context.WithTimeout(ctx, wait)
		ch := startChatter(conn, now)
		unconfirmed := time.AfterFunc(time.Until(start.Add(unconfirmedAfter(rtt))), func() {
			if !ch.answered.Load() {
				cancel()
			}
		})
		id, match, err := q.exchange(ectx, cfg)
		unconfirmed.Stop()
		q.early = ch.stop()
		abandoned := err != nil && !ch.answered.Load() && errors.Is(ectx.Err(), context.Canceled) && ctx.Err() == nil
		cancel()
		if err == nil {
			return id, match, nil
		}
		conn.CloseWithError(codeNormal, "join failed")
		if abandoned && try == 0 {
			continue
		}
		if isTimeout(err) {
			err = fmt.Errorf("%w (waited %v)", err, wait.Round(time.Millisecond))
		}
		return 0, MatchSettings{}, err
	}
}

// exchange answers the host's challenge on the control stream and reads its answer.
func (q *quicClient) exchange(ctx context.Context, cfg ClientConfig) (wire.PlayerID, MatchSettings, error) {
	str, err := q.conn.AcceptStream(ctx)
	if err != nil {
		return 0, MatchSettings{}, fmt.Errorf("control stream: %w", q.cause(err))
	}
	q.str = str
	// A stream read takes no context: end it when ctx ends.
	defer context.AfterFunc(ctx, func() { str.SetReadDeadline(time.Now()) })()
	q.fr = wire.NewFrameReader(str)
	m, err := q.fr.Next()
	if err != nil {
		return 0, MatchSettings{}, fmt.Errorf("read challenge: %w", q.cause(err))
	}
	ch, ok := m.(*wire.Challenge)
	if !ok {
		return 0, MatchSettings{}, fmt.Errorf("host sent %v instead of a challenge", m.Type())
	}
	req := wire.JoinRequest{Name: cfg.Name, Token: cfg.ReconnectToken, Observe: cfg.Observe}
	if ch.PassphraseRequired {
		if cfg.Passphrase == "" {
			return 0, MatchSettings{}, fmt.Errorf("%w: the match needs a passphrase", ErrWrongPassphrase)
		}
		req.Proof = wire.Proof(wire.DeriveKey(cfg.Passphrase, ch.Salt), ch.Nonce, cfg.Name)
	}
	b, err := wire.AppendFrame(nil, &req)
	if err == nil {
		err = q.writeControl(b)
	}
	if err != nil {
		return 0, MatchSettings{}, fmt.Errorf("send join request: %w", q.cause(err))
	}
	if m, err = q.fr.Next(); err != nil {
		return 0, MatchSettings{}, fmt.Errorf("read answer: %w", q.cause(err))
	}
	str.SetReadDeadline(time.Time{})
	switch m := m.(type) {
	case *wire.JoinAccepted:
		q.token = m.Token
		return m.Player, MatchSettings{Map: m.MapName, Extent: m.MapExtent, TickRate: float64(m.TickRate),
			Heartbeat: units.Duration(m.Heartbeat), MapSeed: m.MapSeed}, nil
	case *wire.JoinRefused:
		q.conn.CloseWithError(codeNormal, "refused")
		return 0, MatchSettings{}, &refusedError{reason: m.Reason, text: m.Text}
	}
	return 0, MatchSettings{}, fmt.Errorf("host sent %v instead of an answer", m.Type())
}

func (q *quicClient) sendDatagram(b []byte) error { return q.conn.SendDatagram(b) }

func (q *quicClient) receiveDatagram(ctx context.Context) ([]byte, error) {
	return q.conn.ReceiveDatagram(ctx)
}

func (q *quicClient) writeControl(frame []byte) error {
	q.str.SetWriteDeadline(time.Now().Add(q.timeout))
	_, err := q.str.Write(frame)
	return err
}

func (q *quicClient) readControl() (wire.Message, error) { return q.fr.Next() }

func (q *quicClient) close(code quicCode, reason string) { q.conn.CloseWithError(code, reason) }

// cause explains a connection-level error in plain words.
func (q *quicClient) cause(err error) error {
	if q.conn == nil {
		return err
	}
	cause := context.Cause(q.conn.Context())
	if cause == nil {
		cause = err // the stream can fail a moment before its connection
	}
	var appErr *quic.ApplicationError
	var idle *quic.IdleTimeoutError
	switch {
	case errors.As(cause, &appErr) && appErr.Remote:
		if appErr.ErrorCode == codeRefused {
			return refusalOf(appErr.ErrorMessage)
		}
		return &closedError{"host closed the connection: " + appErr.ErrorMessage, endingOfCode(appErr.ErrorCode)}
	case errors.As(cause, &idle):
		return &closedError{"host stopped responding", EndHostSilent}
	}
	return err
}

// fingerprint returns the SHA-256 fingerprint of the host's certificate.
func (q *quicClient) fingerprint() string {
	st := q.conn.ConnectionState()
	if len(st.TLS.PeerCertificates) == 0 {
		return ""
	}
	return Fingerprint(st.TLS.PeerCertificates[0].Raw)
}
