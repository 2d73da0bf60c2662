package net

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math"
	stdnet "net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/quic-go/quic-go"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/poll"
	"github.com/treadline/treadline/net/wire"
)

func TestPassphrase(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := simHost(t, HostConfig{Passphrase: "tiger tiger"})
		for _, tc := range []struct {
			name, pass string
			ok         bool
		}{
			{"right", "tiger tiger", true},
			{"wrong", "tiger", false},
			{"missing", "", false},
		} {
			// Cases, not subtests: a bubble runs none.
			func() {
				c, err := dialTest(h, ClientConfig{Name: "p-" + tc.name, Passphrase: tc.pass, KnownHosts: "-"})
				if tc.ok {
					if err != nil {
						t.Errorf("%s: right passphrase refused: %v", tc.name, err)
						return
					}
					c.Close()
					return
				}
				if err == nil {
					c.Close()
					t.Errorf("%s: wrong passphrase admitted", tc.name)
					return
				}
				if !errors.Is(err, ErrWrongPassphrase) || !errors.Is(err, ErrRefused) {
					t.Errorf("%s: error %v, want ErrWrongPassphrase wrapping ErrRefused", tc.name, err)
				}
			}()
		}
		// "missing" is refused by the client itself; the host may or may not see it go.
		if got := h.Stats().Refused; got < 1 || got > 2 {
			t.Errorf("host refused %d joins, want 1 or 2", got)
		}
	})
}

func TestFingerprintPinAndTrustOnFirstUse(t *testing.T) {
	t.Parallel() // real time, over QUIC: runs beside the others
	h := testHost(t, HostConfig{})
	bad := strings.Repeat("ab", 32)
	if c, err := dialTest(h, ClientConfig{Fingerprint: bad}); err == nil {
		c.Close()
		t.Fatal("wrong pinned fingerprint accepted")
	} else if !errors.Is(err, ErrFingerprintMismatch) {
		t.Errorf("wrong pin: %v, want ErrFingerprintMismatch", err)
	}

	known := filepath.Join(t.TempDir(), "known_hosts")
	addr := h.Addr().String()
	// First use remembers the fingerprint; the second join checks against it.
	// Each join has a name of its own: the host may not yet have seen the first
	// one leave when the second arrives, and the test is about the fingerprint.
	for i := 0; i < 2; i++ {
		c, err := Dial(t.Context(), ClientConfig{Addr: addr, KnownHosts: known, Name: fmt.Sprintf("tofu-%d", i)})
		if err != nil {
			t.Fatalf("join %d with trust on first use: %v", i, err)
		}
		c.Close()
	}
	data, err := os.ReadFile(known)
	if err != nil || !strings.Contains(string(data), h.Fingerprint()) {
		t.Fatalf("known hosts file %q (%v) lacks the fingerprint", data, err)
	}
	// A changed certificate at the same address is refused loudly.
	os.WriteFile(known, []byte(addr+" "+bad+"\n"), 0o600)
	if c, err := Dial(t.Context(), ClientConfig{Addr: addr, KnownHosts: known}); err == nil {
		c.Close()
		t.Fatal("changed fingerprint accepted")
	} else if !errors.Is(err, ErrFingerprintMismatch) || !strings.Contains(err.Error(), "remove that line") {
		t.Errorf("changed fingerprint: %v", err)
	}
}

// TestRememberPinned: a pinned join with Remember (a match found on the local
// network) writes the fingerprint to the known hosts as trust on first use does, and
// is refused as a changed certificate when the file remembers another one there.
func TestRememberPinned(t *testing.T) {
	t.Parallel() // real time, over QUIC: runs beside the others
	h := testHost(t, HostConfig{})
	known := filepath.Join(t.TempDir(), "known_hosts")
	addr, fp := h.Addr().String(), h.Fingerprint()
	c, err := Dial(t.Context(), ClientConfig{Addr: addr, Fingerprint: fp, Remember: true, KnownHosts: known, Name: "lan"})
	if err != nil {
		t.Fatalf("pinned join with Remember: %v", err)
	}
	c.Close()
	if data, err := os.ReadFile(known); err != nil || string(data) != addr+" "+fp+"\n" {
		t.Fatalf("known hosts file %q (%v), want the line %q", data, err, addr+" "+fp)
	}
	if got, err := KnownFingerprints(known); err != nil || len(got) != 1 || got[addr] != fp {
		t.Errorf("KnownFingerprints = %v, %v; want %s → %s", got, err, addr, fp)
	}
	os.WriteFile(known, []byte(addr+" "+strings.Repeat("ab", 32)+"\n"), 0o600)
	if c, err := Dial(t.Context(), ClientConfig{Addr: addr, Fingerprint: fp, Remember: true, KnownHosts: known}); err == nil {
		c.Close()
		t.Fatal("a pinned join with Remember accepted a certificate other than the one remembered")
	} else if je := (*JoinError)(nil); !errors.As(err, &je) || je.Failure != JoinFingerprint {
		t.Errorf("changed fingerprint: %v, want a JoinFingerprint failure", err)
	}
	// Without Remember the pin alone decides, and the file is left alone.
	c, err = Dial(t.Context(), ClientConfig{Addr: addr, Fingerprint: fp, KnownHosts: known, Name: "typed"})
	if err != nil {
		t.Fatalf("pinned join without Remember: %v", err)
	}
	c.Close()
}

func TestSplitJoin(t *testing.T) {
	fp := strings.Repeat("0F", 32)
	for _, tc := range []struct {
		in, addr, fp string
		ok           bool
	}{
		{"host:7878", "host:7878", "", true},
		{"host:7878#" + fp, "host:7878", strings.ToLower(fp), true},
		{"10.0.0.1:1#AB:CD", "", "", false},
		{"#" + fp, "", "", false},
	} {
		addr, f, err := SplitJoin(tc.in)
		if (err == nil) != tc.ok || addr != tc.addr || f != tc.fp {
			t.Errorf("SplitJoin(%q) = %q, %q, %v", tc.in, addr, f, err)
		}
	}
}

// rawBatch encodes one update without the client's own checks.
func rawBatch(t *testing.T, u wire.Update) []byte {
	t.Helper()
	w := wire.NewBatchWriter(0)
	if err := w.Add(&u); err != nil {
		t.Fatal(err)
	}
	return append([]byte(nil), w.Bytes()...)
}

func TestHostileUpdates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := &ManualClock{}
		h := simHost(t, HostConfig{Limits: Limits{TimeSlack: 500 * time.Millisecond}, Clock: clk})
		victim := pipeJoin(t, h, ClientConfig{Name: "victim", Clock: clk})
		attacker := pipeJoin(t, h, ClientConfig{Name: "attacker", Clock: clk})
		observer := pipeJoin(t, h, ClientConfig{Name: "observer", Clock: clk})
		vTank, err := victim.Spawn("victim", 1, tankAt(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		aTank, err := attacker.Spawn("attacker", 2, tankAt(50, 0))
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, observer, 3*time.Second, func(ev Event) bool { return ev.Kind == EventSpawn && ev.Actor == aTank })
		clk.Advance(1500 * time.Millisecond) // so that a timestamp of 0 is stale

		// Publishing another player's tank through the API is refused locally.
		if err := attacker.Publish(vTank, tankAt(1, 0)); !errors.Is(err, ErrNotOwner) {
			t.Errorf("publish of a foreign tank: %v, want ErrNotOwner", err)
		}
		seq := uint16(0)
		good := func(x float64) deadreckon.State {
			s := tankAt(50+x, 0)
			s.NumArticulations = 0
			s.Time = math.Max(0, attacker.HostNow())
			return s
		}
		upd := func(actor uint32, s deadreckon.State) []byte {
			seq++
			return rawBatch(t, wire.Update{Actor: wire.ActorID(actor), Seq: seq, State: s})
		}
		with := func(f func(*deadreckon.State)) func() []byte {
			return func() []byte {
				s := good(0)
				f(&s)
				return upd(aTank, s)
			}
		}
		var replay []byte
		unauthorized := func(s HostStats) uint64 { return s.Unauthorized }
		invalid := func(s HostStats) uint64 { return s.Invalid }
		late := func(s HostStats) uint64 { return s.Late }
		malformed := func(s HostStats) uint64 { return s.Malformed }
		accepted := func(s HostStats) uint64 { return s.Accepted }
		cases := []struct {
			name    string
			build   func() []byte
			counter func(HostStats) uint64
		}{
			{"foreign tank", func() []byte { return upd(vTank, good(0)) }, unauthorized},
			{"unknown actor", func() []byte { return upd(777, good(0)) }, unauthorized},
			{"out of map", with(func(s *deadreckon.State) { s.Position[0] = 300 }), invalid},
			{"too high", with(func(s *deadreckon.State) { s.Position[1] = 900 }), invalid},
			// 500 m/s saturates on the wire to 32 m/s per axis, still over the limit.
			{"absurd speed", with(func(s *deadreckon.State) { s.Velocity = mgl64.Vec3{500, 0, 500} }), invalid},
			// Saturates on the wire to 31.9 m/s² per axis: 45 m/s² overall.
			{"absurd acceleration", with(func(s *deadreckon.State) { s.Acceleration = mgl64.Vec3{60, 0, 60} }), invalid},
			{"stale time", with(func(s *deadreckon.State) { s.Time = 0 }), invalid},
			{"future time", with(func(s *deadreckon.State) { s.Time += 30 }), invalid},
			{"impossible orientation (NaN on decode)", func() []byte {
				b := upd(aTank, good(0))
				// The orientation field follows 70 bits of position; saturate it.
				for i := len(b) - 24 + 8; i < len(b)-24+13; i++ {
					b[i] = 0xff
				}
				return b
			}, invalid},
			{"truncated", func() []byte { b := upd(aTank, good(0)); return b[:len(b)-5] }, malformed},
			{"oversized", func() []byte {
				b := upd(aTank, good(0))
				return append(b, make([]byte, wire.MaxBatchSize+1-len(b))...)
			}, malformed},
			{"garbage", func() []byte { return []byte{0xde, 0xad, 0xbe, 0xef, 0x00} }, malformed},
			{"wrong version", func() []byte { b := upd(aTank, good(0)); b[0] = wire.Version + 1; return b }, malformed},
			{"empty batch", func() []byte { return []byte{wire.Version, byte(wire.MsgStateBatch)} }, malformed},
			{"valid", func() []byte { replay = upd(aTank, good(0.2)); return replay }, accepted},
			// Right after an accepted update: moves too far for the time between. (A
			// hull's turn is the mover's: TestHostileSpin.)
			{"teleport", with(func(s *deadreckon.State) { s.Position[0] += 40 }), invalid},
			{"replayed", func() []byte { return replay }, late},
			{"older sequence", func() []byte { seq -= 10; b := upd(aTank, good(0.3)); seq += 20; return b }, late},
		}
		for _, tc := range cases {
			before := tc.counter(h.Stats())
			if err := attacker.sendRaw(tc.build(), false); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			poll.Until(t, 2*time.Second, tc.name+" counted", func() bool { return tc.counter(h.Stats()) != before })
			if got := tc.counter(h.Stats()); got != before+1 {
				t.Errorf("%s: counter went %d → %d, want +1", tc.name, before, got)
			}
		}
		if st := h.Stats(); st.Accepted != 1 {
			t.Errorf("host accepted %d of the attacker's updates, want only the valid one", st.Accepted)
		}

		// Junk on the control stream: a chat message with a control character.
		malformed0 := h.Stats().Malformed
		if err := attacker.sendRaw([]byte{0, 8, wire.Version, byte(wire.MsgChat), 0, 0, 3, 'a', 7, 'b'}, true); err != nil {
			t.Fatal(err)
		}

		// The observer must still be served: a valid update from the victim arrives.
		vs := tankAt(0.5, 0)
		vs.NumArticulations = 0
		if err := victim.Publish(vTank, vs); err != nil {
			t.Fatal(err)
		}
		evs := waitFor(t, observer, 3*time.Second, func(ev Event) bool { return ev.Kind == EventState && ev.Actor == vTank })
		for _, ev := range evs {
			if ev.Kind == EventState && ev.Actor == vTank && ev.State.Position[0] < 0.4 {
				t.Errorf("observer saw the attacker's update of the victim's tank: %v", ev.State.Position)
			}
			if ev.Kind == EventState && ev.Actor == aTank && ev.State.Position[0] > 50.25 {
				t.Errorf("observer saw an invalid update of the attacker's tank: %v", ev.State.Position)
			}
		}
		poll.Until(t, 2*time.Second, "junk chat frame counted", func() bool { return h.Stats().Malformed == malformed0+1 })
		st := h.Stats()
		t.Logf("host stats after the attack: %+v", st)
		if st.Malformed != 6 { // five bad datagrams and the junk chat frame
			t.Errorf("malformed count %d, want 6", st.Malformed)
		}
		if st.Players != 4 {
			t.Errorf("%d players after the attack, want 4 (all still connected)", st.Players)
		}
	})
}

func TestRateLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The clock stands still while the client floods: the 10-deep bucket admits 10
		// updates and refills only when the clock moves.
		clk := &ManualClock{}
		h := simHost(t, HostConfig{Limits: Limits{UpdateRate: 20, UpdateBurst: 10}, Clock: clk})
		c := pipeJoin(t, h, ClientConfig{Name: "flood", Clock: clk})
		tank, err := c.Spawn("flood", 1, tankAt(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		counted := func() uint64 { st := h.Stats(); return st.Accepted + st.RateLimited }
		publish := func(n int) {
			t.Helper()
			want := counted() + uint64(n)
			for i := 0; i < n; i++ {
				if err := c.Publish(tank, tankAt(0, 0)); err != nil {
					t.Fatal(err)
				}
			}
			poll.Until(t, 3*time.Second, "updates counted", func() bool { return counted() == want })
		}
		for range 10 { // in groups, so that no datagram overflows a receive queue
			publish(20)
		}
		if st := h.Stats(); st.Accepted != 10 || st.RateLimited != 190 {
			t.Errorf("200 updates at one instant into a 10-deep bucket: accepted %d, rate-limited %d; want 10, 190", st.Accepted, st.RateLimited)
		}
		clk.Advance(time.Second) // 20 tokens, capped at the depth of 10
		publish(20)
		if st := h.Stats(); st.Accepted != 20 || st.RateLimited != 200 {
			t.Errorf("20 more a second later: accepted %d, rate-limited %d; want 20, 200", st.Accepted, st.RateLimited)
		}
	})
}

func TestControlFraming(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := simHost(t, HostConfig{})
		c := testClient(t, h, ClientConfig{Name: "framer", KnownHosts: "-"})
		other := testClient(t, h, ClientConfig{Name: "other", KnownHosts: "-"})
		// A frame claiming more than the limit breaks the stream: the host drops the
		// client, and the other player is unaffected.
		var hdr [2]byte
		binary.BigEndian.PutUint16(hdr[:], wire.MaxFrameSize+1)
		if err := c.sendRaw(hdr[:], true); err != nil {
			t.Fatal(err)
		}
		waitFor(t, c, 3*time.Second, func(ev Event) bool { return ev.Kind == EventClosed })
		if err := other.Chat("still here"); err != nil {
			t.Fatal(err)
		}
		waitFor(t, other, 3*time.Second, func(ev Event) bool { return ev.Kind == EventChat && ev.Text == "still here" })
		if st := h.Stats(); st.Players != 2 || st.Malformed < 1 {
			t.Errorf("host stats %+v, want 2 players and a malformed frame counted", st)
		}
	})
}

func TestControlFloodKicked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The host clock stands still: the 10-deep bucket admits 10 lines and no more.
		clk := &ManualClock{}
		h := simHost(t, HostConfig{Limits: Limits{ControlRate: 5, ControlBurst: 10}, Clock: clk})
		c := pipeJoin(t, h, ClientConfig{Name: "chatty", Clock: clk})
		for i := 0; i < 30; i++ {
			if err := c.Chat("spam"); err != nil {
				break
			}
		}
		waitFor(t, c, 3*time.Second, func(ev Event) bool { return ev.Kind == EventClosed && strings.Contains(ev.Text, "flood") })
		if st := h.Stats(); st.Players != 1 {
			t.Errorf("%d players after the flood, want only the host", st.Players)
		}
	})
}

// rawDial opens a QUIC connection to h without joining and returns it with the
// control stream after reading the challenge.
func rawDial(t *testing.T, h *Host) (*quic.Conn, *quic.Stream, *wire.Challenge, func()) {
	t.Helper()
	udp, err := stdnet.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pc := udp
	if n := networkOf(h); n != nil { // a host on memnet: dial it there
		if pc, err = n.Wrap(udp); err != nil {
			t.Fatal(err)
		}
	}
	tr := &quic.Transport{Conn: pc}
	cleanup := func() { tr.Close(); pc.Close() }
	conn, err := tr.Dial(t.Context(), h.Addr(), clientTLS(h.Addr().String(), h.Fingerprint(), nil),
		&quic.Config{EnableDatagrams: true, MaxIncomingStreams: 1})
	if err != nil {
		cleanup()
		t.Fatal(err)
	}
	str, err := conn.AcceptStream(t.Context())
	if err != nil {
		cleanup()
		t.Fatal(err)
	}
	m, err := wire.NewFrameReader(str).Next()
	ch, ok := m.(*wire.Challenge)
	if err != nil || !ok {
		cleanup()
		t.Fatalf("challenge: %v %T", err, m)
	}
	return conn, str, ch, cleanup
}

func TestJoinProtocolAbuse(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := simHost(t, HostConfig{Passphrase: "secret", Limits: Limits{JoinTimeout: 3 * time.Second}})
		for _, tc := range []struct {
			name  string
			frame []byte
			want  wire.RefuseReason
		}{
			{"garbage instead of a join request", []byte{0, 4, wire.Version, 0x7e, 9, 9}, wire.RefuseProtocol},
			{"chat instead of a join request", []byte{0, 6, wire.Version, byte(wire.MsgChat), 0, 0, 1, 'x'}, wire.RefuseProtocol},
			{"another protocol version", []byte{0, 4, wire.Version + 1, byte(wire.MsgJoinRequest), 1, 'x'}, wire.RefuseVersion},
		} {
			func() { // cases, not subtests: a bubble runs none
				conn, str, _, cleanup := rawDial(t, h)
				defer cleanup()
				str.Write(tc.frame)
				m, err := wire.NewFrameReader(str).Next()
				if err != nil {
					t.Errorf("%s: no refusal: %v", tc.name, err)
					return
				}
				if r, ok := m.(*wire.JoinRefused); !ok || r.Reason != tc.want {
					t.Errorf("%s: answer %+v, want refusal %v", tc.name, m, tc.want)
				}
				<-conn.Context().Done()
			}()
		}
		func() { // proof for another nonce
			// The key derivation is slow on purpose: do it before the join clock starts.
			key := wire.DeriveKey("secret", h.salt)
			conn, str, ch, cleanup := rawDial(t, h)
			defer cleanup()
			if ch.Salt != h.salt {
				t.Error("challenge carries another salt")
				return
			}
			var other [wire.NonceSize]byte
			req := wire.JoinRequest{Name: "mallory", Proof: wire.Proof(key, other, "mallory")}
			b, _ := wire.AppendFrame(nil, &req)
			str.Write(b)
			m, err := wire.NewFrameReader(str).Next()
			if r, ok := m.(*wire.JoinRefused); err != nil || !ok || r.Reason != wire.RefusePassphrase {
				t.Errorf("replayed proof: answer %+v, %v; want a passphrase refusal", m, err)
			}
			<-conn.Context().Done()
		}()
		// The silent connection has a host of its own, whose join deadline is short.
		const silentJoin = time.Second
		silent := simHost(t, HostConfig{Passphrase: "secret", Limits: Limits{JoinTimeout: silentJoin}})
		func() { // silence
			start := time.Now()
			conn, _, _, cleanup := rawDial(t, silent)
			defer cleanup()
			select {
			case <-conn.Context().Done():
				if took := time.Since(start); took < silentJoin {
					t.Errorf("a silent connection cut after %v, before its %v join timeout", took, silentJoin)
				}
			case <-time.After(silentJoin + time.Second):
				t.Errorf("a connection that never joins is still open after %v (join timeout %v)", time.Since(start), silentJoin)
			}
		}()
		if st := h.Stats(); st.Players != 1 || st.Refused != 4 {
			t.Errorf("host stats %+v, want 4 refusals and no one admitted", st)
		}
		if st := silent.Stats(); st.Players != 1 || st.Refused != 1 {
			t.Errorf("the silent connection's host: stats %+v, want 1 refusal and no one admitted", st)
		}
	})
}

func TestPassphraseGuessingSlowed(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		// The guess limiter runs on the host clock, held still so that a loaded machine
		// cannot refill the budget between the guesses (the key derivations take seconds
		// under the race detector).
		h := simHost(t, HostConfig{Passphrase: "right", Clock: &ManualClock{}})
		var refusals []error
		for i := 0; i < DefaultGuessBurst+2; i++ {
			c, err := dialTest(h, ClientConfig{Name: "guesser", Passphrase: "wrong", KnownHosts: "-"})
			if err == nil {
				c.Close()
				t.Fatal("wrong passphrase admitted")
			}
			refusals = append(refusals, err)
		}
		for i, err := range refusals {
			slowed := strings.Contains(err.Error(), "too many")
			if want := i >= DefaultGuessBurst; slowed != want {
				t.Errorf("attempt %d: %v (slowed %v, want %v)", i, err, slowed, want)
			}
		}
		// Even the right passphrase waits its turn from that address.
		if c, err := dialTest(h, ClientConfig{Name: "guesser", Passphrase: "right", KnownHosts: "-"}); err == nil {
			c.Close()
			t.Error("right passphrase admitted while the address is slowed")
		}
	})
}

func TestHalfOpenJoinsBounded(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		// The join deadline is far off, so that only an eviction can free the slot.
		h := simHost(t, HostConfig{Limits: Limits{MaxJoining: 1, JoinTimeout: time.Minute}})
		conn, _, _, cleanup := rawDial(t, h) // holds the only joining slot without joining
		defer cleanup()
		// A newcomer evicts the oldest half-open join instead of being refused.
		c, err := dialTest(h, ClientConfig{Name: "late", KnownHosts: "-", RequestTimeout: 10 * time.Second})
		if err != nil {
			t.Fatalf("join while the only joining slot is held: %v", err)
		}
		c.Close()
		select {
		case <-conn.Context().Done():
		case <-time.After(time.Second):
			t.Error("the half-open join was not evicted")
		}
		if st := h.Stats(); st.JoinsEvicted != 1 || st.Joining != 0 {
			t.Errorf("host stats %+v, want 1 eviction and nobody joining", st)
		}
	})
}

// quietJudge is a Judge that hears everything and says nothing.
type quietJudge struct{}

func (quietJudge) Spawned(uint32, uint32, string, int, deadreckon.State, float64) {}
func (quietJudge) Relayed(uint32, deadreckon.State, float64)                      {}
func (quietJudge) Despawned(uint32, float64)                                      {}
func (quietJudge) Message(uint32, wire.Message, float64, JudgeLink)               {}
func (quietJudge) Tick(float64)                                                   {}
func (quietJudge) Outbox(buf []JudgeMessage) []JudgeMessage                       { return buf }

// TestClaimFloodKicked: hit claims over the sender's rate are bad traffic, and a flood
// of them is kicked like any other.
func TestClaimFloodKicked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := simHost(t, HostConfig{Judge: quietJudge{}, Limits: Limits{ControlRate: 5, ControlBurst: 10, FloodRate: 5, FloodFor: time.Second}})
		c := testClient(t, h, ClientConfig{Name: "claimer", KnownHosts: "-"})
		claim := &wire.HitClaim{Shooter: 1, Shot: 1, Target: 2, Direction: mgl64.Vec3{1, 0, 0}}
		poll.Until(t, 10*time.Second, "the claim flood kicked", func() bool {
			for range 20 {
				if err := c.Send(claim); err != nil {
					t.Log(err)
					break
				}
			}
			return h.Stats().FloodKicked > 0
		})
		if st := h.Stats(); st.Players != 1 {
			t.Errorf("%d players after the claim flood, want only the host", st.Players)
		}
	})
}

// TestDeceptiveTextRefused: a name that looks like a present player's is refused; a
// chat line with a bidi override never reaches the others; the log shows names with
// everything but printable ASCII escaped.
func TestDeceptiveTextRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log lockedBuffer
		h := simHost(t, HostConfig{Logger: slog.New(slog.NewTextHandler(&log, nil))})
		bob := testClient(t, h, ClientConfig{Name: "bob", KnownHosts: "-"})
		if c, err := dialTest(h, ClientConfig{Name: "Воb", KnownHosts: "-"}); err == nil { // Cyrillic В, о
			c.Close()
			t.Error("a Cyrillic look-alike of bob joined")
		} else if !errors.Is(err, ErrRefused) {
			t.Errorf("look-alike join: %v, want refused", err)
		}
		eve := testClient(t, h, ClientConfig{Name: "еve", KnownHosts: "-"}) // Cyrillic е: no one alike is playing
		// A chat line with a right-to-left override, framed by hand (the client's own
		// checks would refuse to send it).
		b, err := wire.AppendFrame(nil, &wire.Chat{Text: "abc"})
		if err != nil {
			t.Fatal(err)
		}
		copy(b[len(b)-3:], "\u202E")
		if err := eve.sendRaw(b, true); err != nil {
			t.Fatal(err)
		}
		if err := eve.Chat("plain"); err != nil {
			t.Fatal(err)
		}
		for _, ev := range waitFor(t, bob, 3*time.Second, func(ev Event) bool { return ev.Kind == EventChat && ev.Text == "plain" }) {
			if ev.Kind == EventChat && strings.ContainsRune(ev.Text, '\u202E') {
				t.Errorf("a bidi override reached another player: %+q", ev.Text)
			}
		}
		if s := log.String(); strings.Contains(s, "еve") || !strings.Contains(s, `\u0435ve`) {
			t.Errorf("the log shows the Cyrillic name raw, or not at all:\n%s", s)
		}
	})
}

// TestUplinkFitsThePublisher floods the default limits with 200 updates a second of
// one tank for two seconds: the host takes no more than a second's burst and the
// default rate for a client's actors, a small multiple of what an honest publisher
// sends, so it relays no more than that to every observer.
func TestUplinkFitsThePublisher(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := &ManualClock{}
		h := simHost(t, HostConfig{Clock: clk})
		c := pipeJoin(t, h, ClientConfig{Name: "flood", Clock: clk})
		tank, err := c.Spawn("flood", 1, tankAt(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		counted := func() uint64 { st := h.Stats(); return st.Accepted + st.RateLimited }
		sent := 0
		for step := 0; step < 40; step++ { // 2 s in steps of 50 ms, 10 updates a step
			want := counted() + 10
			for i := 0; i < 10; i++ {
				s := tankAt(0, 0)
				s.Time = float64(step) * 0.05
				if err := c.Publish(tank, s); err != nil {
					t.Fatal(err)
				}
			}
			sent += 10
			poll.Until(t, 3*time.Second, "updates counted", func() bool { return counted() == want })
			clk.Advance(50 * time.Millisecond)
		}
		actors := float64(DefaultMaxActorsPerPlayer)
		most := uint64(DefaultUpdateBurstPerActor*actors + DefaultUpdateRatePerActor*actors*2)
		st := h.Stats()
		if st.Accepted > most || st.Accepted < most/2 {
			t.Errorf("%d updates in 2 s: accepted %d, want at most %d (burst and rate) and at least half that", sent, st.Accepted, most)
		}
		if honest := 2 * 2 / deadreckon.DefaultMinInterval * actors; DefaultUpdateRatePerActor*actors < honest {
			t.Errorf("the default rate %.0f/s is under an honest client's most, %.0f/s", DefaultUpdateRatePerActor*actors, honest)
		}
	})
}
