package net

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/treadline/treadline/internal/poll"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/net/wire"
)

// checkSentence checks that a join error reads as one sentence naming addr once.
func checkSentence(t *testing.T, je *JoinError, addr string) {
	t.Helper()
	s := je.Sentence()
	if n := strings.Count(s, addr); n != 1 {
		t.Errorf("sentence names %s %d times: %q", addr, n, s)
	}
	if !strings.HasSuffix(s, ".") || strings.Count(s, ". ") > 0 || strings.Contains(s, "\n") {
		t.Errorf("not one sentence: %q", s)
	}
	if n := strings.Count(je.Error(), addr); n != 1 {
		t.Errorf("error chain names %s %d times: %q", addr, n, je.Error())
	}
}

// TestJoinFailures: every way a join to a live host fails is told as one sentence of
// what happened and what to try, with the right JoinFailure.
func TestJoinFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := simHost(t, HostConfig{Passphrase: "tiger", Limits: Limits{MaxPlayers: 3, GuessBurst: 2, GuessInterval: time.Minute}})
		full := simHost(t, HostConfig{Limits: Limits{MaxPlayers: 1}})
		shy := simHost(t, HostConfig{Limits: Limits{HandshakeRate: 0.01}}) // refuses every handshake
		testClient(t, h, ClientConfig{Name: "ann", Passphrase: "tiger"})
		for _, tc := range []struct {
			name string
			host *Host
			cfg  ClientConfig
			want JoinFailure
			say  string // a word the sentence must hold
		}{
			{"name taken", h, ClientConfig{Name: "ann", Passphrase: "tiger"}, JoinNameTaken, "name"},
			{"missing passphrase", h, ClientConfig{Name: "bob"}, JoinWrongPassphrase, "passphrase"},
			{"wrong passphrase", h, ClientConfig{Name: "bob", Passphrase: "lion"}, JoinWrongPassphrase, "passphrase"},
			{"wrong passphrase again", h, ClientConfig{Name: "bob", Passphrase: "puma"}, JoinWrongPassphrase, "passphrase"},
			{"guessing slowed", h, ClientConfig{Name: "bob", Passphrase: "lynx"}, JoinDefences, "try again in "},
			{"full", full, ClientConfig{Name: "cat"}, JoinFull, "full"},
			{"fingerprint changed", full, ClientConfig{Name: "cat", Fingerprint: strings.Repeat("ab", 32)}, JoinFingerprint, "certificate"},
			{"handshakes refused", shy, ClientConfig{Name: "dan"}, JoinDefences, "try again"},
		} {
			// Cases, not subtests: a bubble runs none.
			func() {
				c, err := dialTest(tc.host, tc.cfg)
				if err == nil {
					c.Close()
					t.Errorf("%s: joined", tc.name)
					return
				}
				var je *JoinError
				if !errors.As(err, &je) {
					t.Errorf("%s: %v: not a *JoinError", tc.name, err)
					return
				}
				if je.Failure != tc.want {
					t.Errorf("%s: failure %d, want %d: %v", tc.name, je.Failure, tc.want, err)
				}
				if !strings.Contains(je.Sentence(), tc.say) {
					t.Errorf("%s: sentence %q does not say %q", tc.name, je.Sentence(), tc.say)
				}
				if tc.name == "guessing slowed" && !(je.Wait > 50*time.Second && je.Wait <= time.Minute) {
					t.Errorf("%s: wait %v, want the rest of the minute the guess interval takes", tc.name, je.Wait)
				}
				checkSentence(t, je, tc.host.Addr().String())
			}()
		}
	})
}

// TestJoinErrorClassifies: failures a live host cannot be made to give on demand
// (another protocol version, a refusal overtaken by its close, an eviction, a link
// too slow) are classified from the errors that carry them.
func TestJoinErrorClassifies(t *testing.T) {
	const addr = "192.0.2.7:7777"
	for _, tc := range []struct {
		name  string
		err   error
		heard bool
		want  JoinFailure
		wait  time.Duration
	}{
		{"version", &wire.VersionError{Got: wire.Version + 1}, true, JoinVersion, 0},
		{"version refusal", &refusedError{reason: wire.RefuseVersion, text: "the client speaks protocol version 9, this host version 1"}, true, JoinVersion, 0},
		{"close overtook the refusal", refusalOf("wrong passphrase"), true, JoinWrongPassphrase, 0},
		{"full by address", refusalOf("match full: 4 players already joined from your address"), true, JoinFull, 0},
		{"guessing", refusalOf("refused: too many wrong passphrases from your network; try again in 12 s"), true, JoinDefences, 12 * time.Second},
		{"evicted", &quic.ApplicationError{Remote: true, ErrorCode: codeRefused,
			ErrorMessage: "host busy: too many players joining at once; try again"}, true, JoinDefences, 0},
		{"handshake refused", &quic.TransportError{Remote: true, ErrorCode: quic.ConnectionRefused}, true, JoinDefences, 0},
		{"banned", &refusedError{reason: wire.RefuseBanned, text: "kicked a minute ago"}, true, JoinRefused, 0},
		{"silent", context.DeadlineExceeded, false, JoinNoAnswer, 0},
		{"too slow", context.DeadlineExceeded, true, JoinTooSlow, 0},
		{"host dropped the joiner", &closedError{"host closed the connection: timed out", EndDropped}, true, JoinTooSlow, 0},
		{"no answer", ErrNoAnswer, false, JoinNoAnswer, 0},
		{"other", errors.New("something odd"), true, JoinFailed, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			je := joinError(addr, tc.err, tc.heard)
			if je.Failure != tc.want || je.Wait != tc.wait {
				t.Errorf("failure %d wait %v, want %d wait %v", je.Failure, je.Wait, tc.want, tc.wait)
			}
			if !errors.Is(je, tc.err) {
				t.Errorf("the chain lost %v", tc.err)
			}
			checkSentence(t, je, addr)
		})
	}
	if !errors.Is(refusalOf("wrong passphrase"), ErrWrongPassphrase) || !errors.Is(refusalOf("match full"), ErrRefused) {
		t.Error("refusals do not wrap ErrRefused and ErrWrongPassphrase")
	}
}

// TestJoinDeadLink: a link that carries nothing fails the join with a clear "no
// answer" once its no-answer timeout is over, not before, and the chain goes to the
// log. The dial waits a 1 s timeout rather than the default's 8 s (the suite's time);
// the default, within 10 s, is what a zero config takes.
func TestJoinDeadLink(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const noAnswer = time.Second
		if cfg, err := populateClientConfig(ClientConfig{}); err != nil || cfg.NoAnswerTimeout != DefaultNoAnswerTimeout || DefaultNoAnswerTimeout > 10*time.Second {
			t.Errorf("a zero config's no-answer timeout %v (%v), want DefaultNoAnswerTimeout %v, within 10 s", cfg.NoAnswerTimeout, err, DefaultNoAnswerTimeout)
		}
		h := simHost(t, HostConfig{})
		var logBuf lockedBuffer
		start := time.Now()
		_, err := Dial(t.Context(), ClientConfig{Addr: h.Addr().String(), Fingerprint: h.Fingerprint(),
			Wrap: onNetwork(networkOf(h), Impaired(impair.Link{Loss: 1}, 1)), Logger: slog.New(slog.NewTextHandler(&logBuf, nil)),
			NoAnswerTimeout: noAnswer})
		took := time.Since(start)
		var je *JoinError
		if !errors.As(err, &je) || je.Failure != JoinNoAnswer {
			t.Fatalf("join over a dead link: %v, want JoinNoAnswer", err)
		}
		if took < noAnswer || took > noAnswer+time.Second {
			t.Errorf("join over a dead link gave up after %v, want after its %v no-answer timeout, within 1 s more", took, noAnswer)
		}
		if !strings.Contains(logBuf.String(), "join failed") || !strings.Contains(logBuf.String(), ErrNoAnswer.Error()) {
			t.Errorf("log %q lacks the failure's chain", logBuf.String())
		}
		t.Logf("after %v: %s", took.Round(time.Millisecond), je.Sentence())
		checkSentence(t, je, h.Addr().String())
	})
}

// TestJoinOverSlowLink: joins over a slow, lossy link get in, and the join's clock
// probes seed the clock sync, so the player starts with a host-clock estimate.
func TestJoinOverSlowLink(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := simHost(t, HostConfig{Passphrase: "sesame"})
		link := impair.Link{Latency: 200 * time.Millisecond, Jitter: 40 * time.Millisecond, Loss: 0.2, LossBurst: 2}
		var wg sync.WaitGroup
		for i := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), 14*time.Second)
				defer cancel()
				c, err := Dial(ctx, ClientConfig{Addr: h.Addr().String(), Fingerprint: h.Fingerprint(),
					Name: "slow" + string(rune('a'+i)), Passphrase: "sesame", Wrap: onNetwork(networkOf(h), Impaired(link, uint64(10+i)))})
				if err != nil {
					t.Errorf("join %d over %+v: %v", i, link, err)
					return
				}
				defer c.Close()
				if st := c.Stats(); st.RTT < 300*time.Millisecond {
					t.Errorf("join %d: clock sync's round trip %v after the join, want the link's (≥ 320 ms)", i, st.RTT)
				}
			}()
		}
		wg.Wait()
	})
}

// TestStretch: the join's waits follow the measured round trip between their floor
// and maxStretch times it.
func TestStretch(t *testing.T) {
	for _, tc := range []struct {
		floor, rtt, want time.Duration
	}{
		{2 * time.Second, 10 * time.Millisecond, 2 * time.Second},
		{2 * time.Second, 600 * time.Millisecond, 6 * time.Second},
		{5 * time.Second, time.Second, 10 * time.Second},
		{2 * time.Second, 5 * time.Second, 10 * time.Second},
	} {
		if got := stretch(tc.floor, tc.rtt); got != tc.want {
			t.Errorf("stretch(%v, %v) = %v, want %v", tc.floor, tc.rtt, got, tc.want)
		}
	}
}

// TestProbe: a probe learns that a host answers with its fingerprint, without
// joining; a wrong fingerprint or nobody there is an error.
func TestProbe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := simHost(t, HostConfig{Passphrase: "x"})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		res, err := Probe(ctx, h.Addr().String(), h.Fingerprint(), onNetwork(networkOf(h), nil))
		if err != nil || !res.PassphraseRequired || res.RTT <= 0 {
			t.Errorf("probe = %+v, %v", res, err)
		}
		if _, err := Probe(ctx, h.Addr().String(), strings.Repeat("ab", 32), onNetwork(networkOf(h), nil)); !errors.Is(err, ErrFingerprintMismatch) {
			t.Errorf("probe with another fingerprint: %v", err)
		}
		poll.Until(t, 2*time.Second, "the probe leaves no player", func() bool { st := h.Stats(); return st.Joining == 0 && st.Players == 1 })
		if st := h.Stats(); st.Refused != 0 || st.Joined != 0 {
			t.Errorf("a probe joined or was refused: %+v", st)
		}
		short, cancel2 := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel2()
		if _, err := Probe(short, "127.0.0.1:9", h.Fingerprint(), onNetwork(networkOf(h), nil)); err == nil {
			t.Error("probe of nobody succeeded")
		}
	})
}
