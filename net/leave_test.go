package net

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	stdnet "net"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/treadline/treadline/net/impair"
)

// lockedBuffer is a bytes.Buffer safe for the logger's goroutines and the test's.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestLeaveUnderLag: a player behind a lagged link who leaves is heard leaving at
// once (its Leave and QUIC's CONNECTION_CLOSE still go out when the impaired socket
// closes), not timed out seconds later while the others watch a frozen tank.
func TestLeaveUnderLag(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var logs lockedBuffer
		h := simHost(t, HostConfig{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		watcher := h.Local()
		lag := impair.Link{Latency: 150 * time.Millisecond, Jitter: 30 * time.Millisecond}
		c := testClient(t, h, ClientConfig{Name: "lagged", KnownHosts: "-",
			Wrap: func(pc stdnet.PacketConn) (stdnet.PacketConn, error) {
				return impair.New(pc, impair.Config{Outbound: lag, Inbound: lag, Seed: 1})
			}})
		tank, err := c.Spawn("lagged", 1, tankAt(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, watcher, 3*time.Second, func(ev Event) bool { return ev.Kind == EventSpawn && ev.Actor == tank })
		left := time.Now()
		c.Close()
		// The host's timeout is DefaultTimeout (6 s); the goodbye needs one lagged trip.
		waitFor(t, watcher, 2*time.Second, func(ev Event) bool { return ev.Kind == EventDespawn && ev.Actor == tank })
		t.Logf("host saw the player leave %v after Close", time.Since(left).Round(time.Millisecond))
		if st := h.Stats(); st.TimedOut != 0 || st.Players != 1 {
			t.Errorf("host stats %+v, want no time-out and only the host's own player", st)
		}
		if out := logs.String(); !strings.Contains(out, `msg="player left"`) || !strings.Contains(out, "reason=left") {
			t.Errorf("host log lacks the player leaving:\n%s", out)
		}
	})
}

func TestStallWatch(t *testing.T) {
	var w stallWatch
	iv := 500 * time.Millisecond
	for i, c := range []struct {
		now   float64
		stall bool
	}{{10, false}, {10.5, false}, {11.2, false}, {13.3, true}, {13.8, false}} {
		if _, got := w.tick(c.now, iv); got != c.stall {
			t.Errorf("tick %d at %v: stalled %v, want %v", i, c.now, got, c.stall)
		}
	}
	if err := w.silence(); !strings.Contains(err.Error(), "stalled for 2 s") {
		t.Errorf("silence after a stall: %v", err)
	}
	if err := (&stallWatch{}).silence(); err.Error() != "host stopped responding" {
		t.Errorf("silence without a stall: %v", err)
	}
}

// TestEndingOf: why a session ended follows the code the host closed it with, and
// survives wrapping.
func TestEndingOf(t *testing.T) {
	for code, want := range map[quic.ApplicationErrorCode]Ending{
		codeShutdown: EndHostClosed, codeNormal: EndHostClosed, codeTimeout: EndDropped,
		codeKicked: EndKicked, codeProtocol: EndConnection,
	} {
		err := fmt.Errorf("read: %w", &closedError{"host closed the connection", endingOfCode(code)})
		if got := endingOf(err, EndUnknown); got != want {
			t.Errorf("code %d: %v, want %v", code, got, want)
		}
	}
	if got := endingOf(errors.New("other"), EndHostSilent); got != EndHostSilent {
		t.Errorf("an error without an ending: %v, want the fallback", got)
	}
}
