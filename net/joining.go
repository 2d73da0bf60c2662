package net

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	stdnet "net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/qlogwriter"
	"github.com/treadline/treadline/net/clock"
	"github.com/treadline/treadline/net/wire"
)

// How a join copes with a slow, lossy link. QUIC retransmits a lost packet after a
// timeout that starts at three round trips and doubles with each loss in a row, so
// on the slowest link a player may ask for (500 ms each way, a third of the packets
// lost in bursts) a join that waits for QUIC alone takes tens of seconds, or runs
// into the host's deadlines. The join therefore starts a new handshake every
// joinStagger while nothing has come back, keeps a few clock probes in flight
// while it waits for the host's answer (each one acknowledged lets QUIC notice a
// lost packet in about a round trip instead of a timeout), and both ends wait for
// each other in measured round trips, within bounds.
const (
	// DefaultNoAnswerTimeout is how long a join waits for the first packet from the
	// host before it gives up with ErrNoAnswer: nothing listens at the address, or
	// the way there is cut.
	DefaultNoAnswerTimeout = 8 * time.Second
	// joinStagger is how often a join starts another handshake while the host has
	// not answered any.
	joinStagger = time.Second
	// maxHandshakes bounds the handshakes one join starts, far below the host's
	// per-prefix handshake cap and rate.
	maxHandshakes = 4
	// joinRTTs is how many measured round trips either end waits for the other
	// during the join exchange at least: each lost message costs about two (one to
	// notice, one to send it again), and bursts lose several in a row.
	joinRTTs = 10
	// maxStretch bounds that wait at this many times its configured floor
	// (Limits.JoinTimeout on the host, ClientConfig.RequestTimeout on the client),
	// so that a peer that fakes a long round trip holds a joining slot for a
	// bounded time.
	maxStretch = 5
	// probeEvery is how often a joining client sends a clock probe while it waits
	// for the host (see chatter).
	probeEvery = 100 * time.Millisecond
	// maxChatterSamples bounds the answers a joining client keeps.
	maxChatterSamples = 64
	// maxEarlyAnswers bounds the probes the host answers for one connection before
	// it admits the player: 20 per second over the longest wait, as a player's
	// control budget allows.
	maxEarlyAnswers = 20 * maxStretch * int(DefaultHostJoinTimeout/time.Second)
)

// unconfirmedAfter is how long after its handshake started a joining client waits for
// the host to answer a probe before it gives the connection up: the host's default
// handshake budget, and a round trip or two for the answer to come back. By then a
// host with default limits has given up a handshake whose last packet from the
// client it never received, though the client's side of it completed.
func unconfirmedAfter(rtt time.Duration) time.Duration { return DefaultHandshakeTimeout + 2*rtt }

// stretch returns floor stretched to joinRTTs round trips of rtt, at most
// maxStretch times floor.
func stretch(floor, rtt time.Duration) time.Duration {
	return min(max(floor, joinRTTs*rtt), maxStretch*floor)
}

// linkRTT is a join's measure of the round trip on conn: the longer of QUIC's
// smoothed estimate and handshake, how long the QUIC handshake took (a round trip at
// least, which retransmissions that went out early cannot shorten, as they can
// QUIC's estimate).
func linkRTT(conn *quic.Conn, handshake time.Duration) time.Duration {
	return max(conn.ConnectionStats().SmoothedRTT, handshake)
}

// hearing records whether any packet has come from the host on a join's
// connections. It is a qlog trace that reads only the event names, so it costs a
// name comparison per packet. Safe for concurrent use.
type hearing struct{ heard atomic.Bool }

func (h *hearing) tracer(context.Context, bool, quic.ConnectionID) qlogwriter.Trace { return h }

// AddProducer returns h itself: every connection records into it.
func (h *hearing) AddProducer() qlogwriter.Recorder { return h }

// RecordEvent notes a received packet, whatever became of it.
func (h *hearing) RecordEvent(ev qlogwriter.Event) {
	if !h.heard.Load() {
		switch ev.Name() {
		case "transport:packet_received", "transport:packet_buffered", "transport:packet_dropped":
			h.heard.Store(true)
		}
	}
}

// Close does nothing.
func (h *hearing) Close() error { return nil }

// verifyOnce keeps the first certificate verification failure of a join's
// handshakes.
type verifyOnce struct {
	mu  sync.Mutex
	err error
}

// wrap returns conf with its certificate check recording its failures in v.
func (v *verifyOnce) wrap(conf *tls.Config) *tls.Config {
	verify := conf.VerifyPeerCertificate
	conf.VerifyPeerCertificate = func(raw [][]byte, chains [][]*x509.Certificate) error {
		err := verify(raw, chains)
		if err != nil {
			v.mu.Lock()
			if v.err == nil {
				v.err = err
			}
			v.mu.Unlock()
		}
		return err
	}
	return conf
}

func (v *verifyOnce) get() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.err
}

// handshakeResult is how one handshake attempt ended.
type handshakeResult struct {
	conn *quic.Conn
	took time.Duration
	err  error
}

// handshake runs the QUIC handshake with the host at raddr: one attempt at once and,
// while nothing has come back, another every joinStagger, up to maxHandshakes. The
// first to complete is the join's connection, returned with the time its handshake
// took; the others are closed. It gives up
// with ErrNoAnswer when nothing has come back within noAnswer, and at once when the
// host's certificate fails the check (newTLS makes each attempt's configuration).
func (q *quicClient) handshake(ctx context.Context, raddr *stdnet.UDPAddr, newTLS func() *tls.Config,
	qc *quic.Config, noAnswer time.Duration, heard *hearing) (*quic.Conn, time.Duration, error) {
	var verified verifyOnce
	actx, cancel := context.WithCancel(ctx)
	results := make(chan handshakeResult, maxHandshakes)
	started, pending := 0, 0
	start := func() {
		started++
		pending++
		conf := verified.wrap(newTLS())
		go func() {
			t0 := time.Now()
			conn, err := q.sock.tr.Dial(actx, raddr, conf, qc)
			results <- handshakeResult{conn, time.Since(t0), err}
		}()
	}
	// finish ends the other attempts and closes any that still complete.
	finish := func() {
		cancel()
		go func(n int) {
			for range n {
				if r := <-results; r.conn != nil {
					r.conn.CloseWithError(codeNormal, "joined on another connection")
				}
			}
		}(pending)
	}
	start()
	again := time.NewTicker(joinStagger)
	defer again.Stop()
	deaf := time.NewTimer(noAnswer)
	defer deaf.Stop()
	for {
		select {
		case r := <-results:
			pending--
			switch {
			case r.err == nil:
				finish()
				return r.conn, r.took, nil
			case verified.get() != nil:
				finish()
				return nil, 0, verified.get()
			case pending == 0 && (started == maxHandshakes || heard.heard.Load() || ctx.Err() != nil):
				finish()
				return nil, 0, fmt.Errorf("handshake: %w", r.err)
			case pending == 0:
				start() // failed before the host answered: try again, still within noAnswer
			}
		case <-again.C:
			if !heard.heard.Load() && started < maxHandshakes {
				start()
			}
		case <-deaf.C:
			if !heard.heard.Load() {
				finish()
				return nil, 0, fmt.Errorf("%w within %v", ErrNoAnswer, noAnswer)
			}
		case <-ctx.Done():
			finish()
			return nil, 0, fmt.Errorf("handshake: %w", ctx.Err())
		}
	}
}

// chatter keeps clock probes going while a join waits on the host, and reads what
// comes back by datagram: the host answers them from the end of the handshake on,
// before it admits the player. On a lossy link each packet acknowledged lets QUIC
// notice a lost one in about a round trip instead of its doubling timeout, and the
// answers seed the clock sync.
type chatter struct {
	// answered is set at the first answer: the host has completed its side of the
	// handshake.
	answered atomic.Bool
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	samples  []clock.Sample // read by the receiver until it ends
}

// startChatter starts probing over conn every probeEvery, stamped by now, the client
// clock in seconds.
func startChatter(conn *quic.Conn, now func() float64) *chatter {
	ctx, cancel := context.WithCancel(context.Background())
	ch := &chatter{cancel: cancel}
	ch.wg.Add(2)
	go func() {
		defer ch.wg.Done()
		t := time.NewTicker(probeEvery)
		defer t.Stop()
		var buf []byte
		for {
			b, err := (&wire.ClockRequest{ClientSend: now()}).Append(buf[:0])
			if err != nil || conn.SendDatagram(b) != nil {
				return
			}
			buf = b
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	go func() {
		defer ch.wg.Done()
		for len(ch.samples) < maxChatterSamples {
			b, err := conn.ReceiveDatagram(ctx)
			if err != nil {
				return
			}
			if m, _, err := wire.Parse(b); err == nil {
				if a, ok := m.(*wire.ClockAnswer); ok {
					ch.answered.Store(true)
					ch.samples = append(ch.samples, clock.Sample{LocalSend: a.ClientSend, RemoteReceive: a.HostReceive,
						RemoteSend: a.HostSend, LocalReceive: now()})
				}
			}
			// Anything else before the player is admitted is of no use yet.
		}
	}()
	return ch
}

// stop ends the chatter and returns the clock samples of the answers it read.
func (ch *chatter) stop() []clock.Sample {
	ch.cancel()
	ch.wg.Wait()
	return ch.samples
}

// answerEarly answers the clock probes a joining client sends over conn until stop
// is called, at most maxEarlyAnswers of them, stamped by now, the host clock in
// seconds: see chatter. stop waits for it to end, so that the connection's reader
// can take over.
func answerEarly(conn *quic.Conn, now func() float64) (stop func()) {
	ctx, cancel := context.WithCancel(conn.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		var buf []byte
		for range maxEarlyAnswers {
			b, err := conn.ReceiveDatagram(ctx)
			if err != nil {
				return
			}
			m, _, err := wire.Parse(b)
			req, ok := m.(*wire.ClockRequest)
			if err != nil || !ok {
				continue // a joining client has nothing else to send
			}
			t := now()
			if buf, err = (&wire.ClockAnswer{ClientSend: req.ClientSend, HostReceive: t, HostSend: t}).Append(buf[:0]); err == nil {
				conn.SendDatagram(buf)
			}
		}
	}()
	return func() { cancel(); <-done }
}
