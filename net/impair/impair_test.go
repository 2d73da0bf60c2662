package impair

import (
	"errors"
	"math"
	stdnet "net"
	"os"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/treadline/treadline/internal/memnet"
	"github.com/treadline/treadline/internal/poll"
)

func udpPair(t testing.TB) (a, b stdnet.PacketConn) {
	t.Helper()
	a, err := stdnet.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b, err = stdnet.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		a.Close()
		t.Fatal(err)
	}
	return a, b
}

// memPair returns two endpoints of a new in-memory network (internal/memnet), for a
// test in a synctest bubble: the link's delays then run on the bubble's clock.
func memPair(t testing.TB) (a, b stdnet.PacketConn) {
	t.Helper()
	n := memnet.New()
	a, err := n.Listen("127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	if b, err = n.Listen("127.0.0.1:2"); err != nil {
		t.Fatal(err)
	}
	return a, b
}

// memConn is an in-memory PacketConn: it records what is written to it, and its
// ReadFrom waits for Close. Tests of what a Conn decides use it instead of a socket.
type memConn struct {
	mu      sync.Mutex
	written [][]byte
	closed  chan struct{}
	once    sync.Once
}

func newMemConn() *memConn { return &memConn{closed: make(chan struct{})} }

func (m *memConn) ReadFrom([]byte) (int, stdnet.Addr, error) {
	<-m.closed
	return 0, nil, stdnet.ErrClosed
}

func (m *memConn) WriteTo(b []byte, _ stdnet.Addr) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.written = append(m.written, append([]byte(nil), b...))
	return len(b), nil
}

// count returns how many packets were written.
func (m *memConn) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.written)
}

func (m *memConn) Close() error { m.once.Do(func() { close(m.closed) }); return nil }
func (m *memConn) LocalAddr() stdnet.Addr {
	return &stdnet.UDPAddr{IP: stdnet.IPv4(127, 0, 0, 1), Port: 9}
}
func (m *memConn) SetDeadline(time.Time) error      { return nil }
func (m *memConn) SetReadDeadline(time.Time) error  { return nil }
func (m *memConn) SetWriteDeadline(time.Time) error { return nil }

// collect reads packets from pc until n arrive or wait passes, recording payload
// index and arrival time.
func collect(pc stdnet.PacketConn, n int, wait time.Duration) (idx []int, at []time.Time) {
	buf := make([]byte, 2048)
	end := time.Now().Add(wait)
	for len(idx) < n {
		pc.SetReadDeadline(end)
		k, _, err := pc.ReadFrom(buf)
		if err != nil {
			return idx, at
		}
		if k >= 2 {
			idx = append(idx, int(buf[0])<<8|int(buf[1]))
			at = append(at, time.Now())
		}
	}
	return idx, at
}

// readersWaiting returns a condition: n ReadFrom calls wait for a packet.
func (c *Conn) readersWaiting(n int) func() bool {
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.waiting == n
	}
}

func TestValidation(t *testing.T) {
	a := newMemConn()
	defer a.Close()
	for _, cfg := range []Config{
		{Outbound: Link{Loss: 1.5}},
		{Inbound: Link{Duplicate: -0.1}},
		{Outbound: Link{Latency: -time.Millisecond}},
		{Outbound: Link{Loss: 0.1, LossBurst: -2}},
		{Outbound: Link{Loss: 1, LossBurst: 3}},
	} {
		if c, err := New(a, cfg); err == nil {
			c.Close()
			t.Errorf("New(%+v) accepted a bad config", cfg)
		}
	}
	if _, err := New(nil, Config{}); err == nil {
		t.Error("New(nil) accepted")
	}
}

func TestLatencyAndLoss(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		link     Link
		n        int
		minDelay time.Duration
		lossLo   float64
		lossHi   float64
		inbound  bool
	}{
		{"passthrough", Link{}, 50, 0, 0, 0, false},
		{"latency", Link{Latency: 40 * time.Millisecond}, 50, 35 * time.Millisecond, 0, 0, false},
		{"loss 30%", Link{Loss: 0.3}, 400, 0, 0.2, 0.4, false},
		{"inbound latency", Link{Latency: 40 * time.Millisecond}, 50, 35 * time.Millisecond, 0, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) { // the link's delays on the bubble's clock
				a, b := memPair(t)
				cfg := Config{Outbound: tc.link, Seed: 7}
				var send, recv stdnet.PacketConn = a, b
				if tc.inbound {
					cfg = Config{Inbound: tc.link, Seed: 7}
				}
				wrapped, err := New(map[bool]stdnet.PacketConn{false: a, true: b}[tc.inbound], cfg)
				if err != nil {
					t.Fatal(err)
				}
				if tc.inbound {
					recv = wrapped
					defer a.Close()
				} else {
					send = wrapped
					defer b.Close()
				}
				defer wrapped.Close()
				// The receiver reads while the sender sends, so that no packet is lost to a
				// full socket buffer.
				var idx []int
				var at []time.Time
				received := make(chan struct{})
				go func() {
					defer close(received)
					idx, at = collect(recv, tc.n, 400*time.Millisecond+tc.link.Latency)
				}()
				start := time.Now()
				for i := 0; i < tc.n; i++ {
					if _, err := send.WriteTo([]byte{byte(i >> 8), byte(i)}, recv.LocalAddr()); err != nil {
						t.Fatal(err)
					}
				}
				<-received
				loss := 1 - float64(len(idx))/float64(tc.n)
				if loss < tc.lossLo-1e-9 || loss > tc.lossHi+1e-9 {
					t.Errorf("loss %.3f, want in [%.2f, %.2f]", loss, tc.lossLo, tc.lossHi)
				}
				if len(at) > 0 && at[0].Sub(start) < tc.minDelay {
					t.Errorf("first packet after %v, want ≥ %v", at[0].Sub(start), tc.minDelay)
				}
				for i := 1; i < len(idx); i++ {
					if idx[i] <= idx[i-1] {
						t.Fatalf("packet %d arrived after %d without reordering configured", idx[i], idx[i-1])
					}
				}
			})
		})
	}
}

func TestJitterKeepsOrderReorderBreaksIt(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		run := func(link Link) (idx []int) {
			a, b := memPair(t)
			defer b.Close()
			c, err := New(a, Config{Outbound: link, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			const n = 100
			for i := 0; i < n; i++ {
				c.WriteTo([]byte{byte(i >> 8), byte(i)}, b.LocalAddr())
			}
			idx, _ = collect(b, n, time.Second)
			return idx
		}
		inversions := func(idx []int) int {
			k := 0
			for i := 1; i < len(idx); i++ {
				if idx[i] < idx[i-1] {
					k++
				}
			}
			return k
		}
		jit := run(Link{Latency: 10 * time.Millisecond, Jitter: 8 * time.Millisecond})
		if len(jit) != 100 || inversions(jit) != 0 {
			t.Errorf("jitter only: %d packets, %d inversions; want 100 and 0", len(jit), inversions(jit))
		}
		re := run(Link{Latency: 5 * time.Millisecond, Reorder: 0.2, ReorderDelay: 10 * time.Millisecond})
		if len(re) != 100 || inversions(re) == 0 {
			t.Errorf("reorder 20%%: %d packets, %d inversions; want 100 and > 0", len(re), inversions(re))
		}
	})
}

// TestDuplicate runs in a synctest bubble: the delivery goroutines run on the
// bubble's clock, and all that is due has been written once they all wait.
func TestDuplicate(t *testing.T) { synctest.Test(t, testDuplicate) }

func testDuplicate(t *testing.T) {
	inner := newMemConn()
	c, err := New(inner, Config{Outbound: Link{Duplicate: 1}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := 0; i < 20; i++ {
		c.WriteTo([]byte{0, byte(i)}, inner.LocalAddr())
	}
	time.Sleep(time.Second) // the bubble's: every delivery's timer fires
	synctest.Wait()
	if n := inner.count(); n != 40 {
		t.Fatalf("%d packets written, want 40 (every one twice)", n)
	}
	if s := c.Stats(); s.Duplicated != 20 || s.Sent != 40 {
		t.Errorf("stats %+v, want 20 duplicated and 40 sent", s)
	}
}

func TestSeededDeterminism(t *testing.T) { synctest.Test(t, testSeededDeterminism) }

func testSeededDeterminism(t *testing.T) {
	lost := func() uint64 {
		inner := newMemConn()
		c, err := New(inner, Config{Outbound: Link{Loss: 0.5}, Seed: 42})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		for i := 0; i < 200; i++ {
			c.WriteTo([]byte{0, 0}, inner.LocalAddr())
		}
		return c.Stats().Lost
	}
	// Both counts must also be a half's loss: two zeros (loss not applied) or two
	// 200s would agree too.
	if x, y := lost(), lost(); x != y || x < 60 || x > 140 {
		t.Errorf("same seed lost %d then %d of 200 packets, want the same count, about 100", x, y)
	}
}

func TestReadDeadlineAndClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := memPair(t)
		defer b.Close()
		before := runtime.NumGoroutine()
		c, err := New(a, Config{Inbound: Link{Latency: time.Millisecond}, Outbound: Link{Latency: time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
		if _, _, err := c.ReadFrom(make([]byte, 10)); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("ReadFrom past deadline: %v, want os.ErrDeadlineExceeded", err)
		}
		// A reader blocked without deadline is released by SetReadDeadline(now) and by Close.
		c.SetReadDeadline(time.Time{})
		var wg sync.WaitGroup
		errc := make(chan error, 1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := c.ReadFrom(make([]byte, 10))
			errc <- err
		}()
		poll.Until(t, 5*time.Second, "ReadFrom waiting", c.readersWaiting(1))
		c.SetReadDeadline(time.Now())
		if err := <-errc; !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("blocked ReadFrom after SetReadDeadline(now): %v", err)
		}
		wg.Wait()
		c.SetReadDeadline(time.Time{})
		go func() { _, _, err := c.ReadFrom(make([]byte, 10)); errc <- err }()
		poll.Until(t, 5*time.Second, "ReadFrom waiting", c.readersWaiting(1))
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if err := <-errc; !errors.Is(err, stdnet.ErrClosed) {
			t.Errorf("ReadFrom after Close: %v, want net.ErrClosed", err)
		}
		if err := c.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
		if _, err := c.WriteTo([]byte{1}, b.LocalAddr()); !errors.Is(err, stdnet.ErrClosed) {
			t.Errorf("WriteTo after Close: %v", err)
		}
		if !poll.Within(5*time.Second, func() bool { return runtime.NumGoroutine() <= before }) {
			g := runtime.NumGoroutine()
			t.Errorf("%d goroutines after Close, %d before", g, before)
		}
	})
}

func BenchmarkWriteToImpaired(b *testing.B) {
	a, sink := udpPair(b)
	defer sink.Close()
	c, err := New(a, Config{Outbound: Link{Latency: time.Millisecond, Loss: 0.9}, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	p := make([]byte, 1200)
	b.ReportAllocs()
	for b.Loop() {
		c.WriteTo(p, sink.LocalAddr())
	}
}

func TestBurstLoss(t *testing.T) {
	for _, tc := range []struct {
		loss, burst float64
	}{
		{0.1, 0}, {0.1, 4}, {0.3, 2},
	} {
		p, err := NewPath(Link{Loss: tc.loss, LossBurst: tc.burst}, 1)
		if err != nil {
			t.Fatal(err)
		}
		const n = 200000
		lost, runs, run := 0, 0, 0
		for i := 0; i < n; i++ {
			if p.Send(time.Duration(i) * time.Millisecond).Lost {
				lost++
				run++
			} else if run > 0 {
				runs++
				run = 0
			}
		}
		rate := float64(lost) / n
		meanRun := float64(lost) / float64(runs)
		wantRun := math.Max(1/(1-tc.loss), tc.burst) // independent losses: runs of 1/(1−p)
		if math.Abs(rate-tc.loss) > 0.01 {
			t.Errorf("loss %v burst %v: long-run loss %.4f", tc.loss, tc.burst, rate)
		}
		if math.Abs(meanRun-wantRun)/wantRun > 0.05 {
			t.Errorf("loss %v burst %v: mean burst %.2f packets, want %.2f", tc.loss, tc.burst, meanRun, wantRun)
		}
	}
}

// TestCloseSendsDelayedPackets: packets still delayed when Close is called are sent at
// once and in order (a connection's goodbye is not lost to the added latency), while
// the wrapped conn is closed afterwards.
func TestCloseSendsDelayedPackets(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		a, b := memPair(t)
		defer b.Close()
		c, err := New(a, Config{
			Outbound: Link{Latency: 10 * time.Second, Jitter: time.Second},
			Inbound:  Link{Latency: 10 * time.Second},
		})
		if err != nil {
			t.Fatal(err)
		}
		const n = 20
		for i := range n {
			if _, err := c.WriteTo([]byte{byte(i >> 8), byte(i)}, b.LocalAddr()); err != nil {
				t.Fatal(err)
			}
		}
		start := time.Now()
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		idx, _ := collect(b, n, 3*time.Second)
		if len(idx) != n {
			t.Fatalf("%d of %d delayed packets arrived after Close, want all", len(idx), n)
		}
		for i, k := range idx {
			if k != i {
				t.Fatalf("packets after Close arrived in order %v, want 0..%d", idx, n-1)
			}
		}
		if waited := time.Since(start); waited > 2*time.Second {
			t.Errorf("Close and delivery took %v; the 10 s latency was not skipped", waited)
		}
		if st := c.Stats(); st.Sent != n || st.Lost != 0 {
			t.Errorf("stats %+v, want %d sent and none lost", st, n)
		}
		if _, err := a.WriteTo([]byte{0}, b.LocalAddr()); err == nil {
			t.Error("the wrapped conn is still open after Close")
		}
	})
}

// TestPathOnSimulatedClock runs the link model on a clock of its own, as an in-memory
// match or the lab does: delays stay in [Latency−Jitter, Latency+Jitter] (plus the
// reorder hold), jitter alone keeps packets in order, and duplicates follow their
// original by DuplicateDelay.
func TestPathOnSimulatedClock(t *testing.T) {
	const n = 20000
	link := Link{Latency: 50 * time.Millisecond, Jitter: 20 * time.Millisecond, Duplicate: 0.1, Reorder: 0.05}
	p, err := NewPath(link, 5)
	if err != nil {
		t.Fatal(err)
	}
	var last time.Duration
	dups, reordered, inversions := 0, 0, 0
	for i := 0; i < n; i++ {
		sent := time.Duration(i) * 5 * time.Millisecond
		d := p.Send(sent)
		if d.Lost {
			t.Fatal("lost a packet on a link without loss")
		}
		lo, hi := link.Latency-link.Jitter, link.Latency+link.Jitter
		if d.Reordered {
			reordered++
			lo += DefaultReorderDelay
			hi += DefaultReorderDelay
		} else if d.At < last {
			inversions++
		}
		if delay := d.At - sent; (delay < lo || delay > hi) && !(!d.Reordered && d.At == last) {
			t.Fatalf("packet %d: delay %v outside [%v, %v]", i, delay, lo, hi)
		}
		if !d.Reordered {
			last = d.At
		}
		if d.Duplicated {
			dups++
			if d.DuplicateAt != d.At+DefaultDuplicateDelay {
				t.Fatalf("duplicate at %v, original at %v", d.DuplicateAt, d.At)
			}
		}
	}
	if inversions != 0 {
		t.Errorf("%d in-order packets overtook one another under jitter alone", inversions)
	}
	if f := float64(dups) / n; math.Abs(f-0.1) > 0.01 {
		t.Errorf("duplicated %.3f of packets, want 0.1", f)
	}
	if f := float64(reordered) / n; math.Abs(f-0.05) > 0.01 {
		t.Errorf("reordered %.3f of packets, want 0.05", f)
	}
	if _, err := NewPath(Link{Loss: 2}, 1); err == nil {
		t.Error("NewPath accepted a loss of 2")
	}
}
