package net

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/treadline/treadline/internal/memnet"
	"github.com/treadline/treadline/internal/poll"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/net/wire"
)

func TestHostCloseEndsClients(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := simHost(t, HostConfig{})
		c := testClient(t, h, ClientConfig{Name: "ann", KnownHosts: "-"})
		if _, err := c.Spawn("ann", 1, tankAt(0, 0)); err != nil {
			t.Fatal(err)
		}
		h.Close()
		evs := waitFor(t, c, 3*time.Second, func(ev Event) bool { return ev.Kind == EventClosed })
		last := evs[len(evs)-1]
		if !strings.Contains(last.Text, "host closed the match") || last.Ending != EndHostClosed {
			t.Errorf("closed event says %q (%v), want the host's reason (%v)", last.Text, last.Ending, EndHostClosed)
		}
		if err := c.Publish(1, tankAt(0, 0)); !errors.Is(err, ErrClosed) && !errors.Is(err, ErrNotOwner) {
			t.Errorf("publish after the host closed: %v", err)
		}
		if _, err := c.Spawn("ann", 1, tankAt(0, 0)); err == nil {
			t.Error("spawn after the host closed succeeded")
		}
		// Nothing more after EventClosed, and Close still works.
		if more := c.Poll(nil); len(more) != 0 {
			t.Errorf("events after EventClosed: %+v", more)
		}
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
}

func TestHostVanishes(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		clk := &ManualClock{}
		h := simHost(t, HostConfig{Clock: clk})
		c := testClient(t, h, ClientConfig{Name: "ann", KnownHosts: "-", Timeout: time.Second, SyncInterval: 50 * time.Millisecond, Clock: clk})
		// Pull the plug: the socket stops without telling anyone, and the client's
		// clock runs past its timeout.
		h.pc.Close()
		clk.Advance(2 * time.Second)
		evs := waitFor(t, c, 4*time.Second, func(ev Event) bool { return ev.Kind == EventClosed })
		if last := evs[len(evs)-1]; !strings.Contains(last.Text, "stopped responding") || last.Ending != EndHostSilent {
			t.Errorf("closed event says %q (%v), want the host stopped responding (%v)", last.Text, last.Ending, EndHostSilent)
		}
	})
}

func TestSilentClientDroppedAndRejoins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := &ManualClock{}
		h := simHost(t, HostConfig{Limits: Limits{Timeout: 600 * time.Millisecond}, Clock: clk})
		watcher := h.Local()
		// A client that probes the host clock only every 5 s of its own clock (1 s at first);
		// the test moves the host's clock a second at a time, so the host hears nothing
		// from it for longer than its timeout.
		quiet := pipeJoin(t, h, ClientConfig{Name: "quiet", SyncInterval: 5 * time.Second})
		tank, err := quiet.Spawn("quiet", 1, tankAt(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		var all []Event
		poll.Until(t, 4*time.Second, "silent player's tank despawned", func() bool {
			clk.Advance(time.Second)
			n := len(all)
			all = watcher.Poll(all)
			for _, ev := range all[n:] {
				if ev.Kind == EventDespawn && ev.Actor == tank && ev.Text == wire.DespawnOwnerGone.String() {
					return true
				}
			}
			return false
		})
		waitFor(t, quiet, 3*time.Second, func(ev Event) bool {
			return ev.Kind == EventClosed && strings.Contains(ev.Text, "timed out") && ev.Ending == EndDropped
		})
		if st := h.Stats(); st.TimedOut != 1 || st.Players != 1 {
			t.Errorf("host stats %+v, want 1 timed out and only the host left", st)
		}
		// The player joins again under the same name.
		back := pipeJoin(t, h, ClientConfig{Name: "quiet"})
		if back.ID() == quiet.ID() {
			t.Errorf("rejoined player reuses id %d", back.ID())
		}
		if _, err := back.Spawn("quiet", 1, tankAt(0, 0)); err != nil {
			t.Fatalf("spawn after rejoin: %v", err)
		}
	})
}

func TestNameInUse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := &ManualClock{}
		h := simHost(t, HostConfig{Clock: clk})
		pipeJoin(t, h, ClientConfig{Name: "ann", Clock: clk})
		if c, err := pipeDial(h, ClientConfig{Name: "ann", Clock: clk}); err == nil {
			c.Close()
			t.Fatal("second live player named ann admitted")
		} else if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "in use") {
			t.Errorf("duplicate name: %v", err)
		}
	})
}

func TestMatchFull(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := &ManualClock{}
		h := simHost(t, HostConfig{Limits: Limits{MaxPlayers: 2}, Clock: clk})
		pipeJoin(t, h, ClientConfig{Name: "one", Clock: clk})
		if c, err := pipeDial(h, ClientConfig{Name: "two", Clock: clk}); err == nil {
			c.Close()
			t.Fatal("third player admitted to a two-player match")
		} else if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "full") {
			t.Errorf("full match: %v", err)
		}
	})
}

func TestSpawnLimitsAndKick(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := &ManualClock{}
		h := simHost(t, HostConfig{Limits: Limits{MaxActorsPerPlayer: 2}, Clock: clk})
		c := pipeJoin(t, h, ClientConfig{Name: "ann", Clock: clk})
		for i := 0; i < 2; i++ {
			if _, err := c.Spawn("ann", 1, tankAt(float64(i), 0)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := c.Spawn("ann", 1, tankAt(5, 0)); err == nil {
			t.Error("third actor admitted with a limit of two")
		}
		if _, err := c.Spawn("ann", 1, tankAt(999, 0)); err == nil {
			t.Error("spawn off the map admitted")
		}
		if err := h.Kick(c.ID(), "testing"); err != nil {
			t.Fatal(err)
		}
		waitFor(t, c, 3*time.Second, func(ev Event) bool { return ev.Kind == EventClosed && strings.Contains(ev.Text, "testing") })
		if st := h.Stats(); st.Actors != 0 || st.Players != 1 {
			t.Errorf("after the kick: %+v", st)
		}
	})
}

func TestDialNobody(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		// An address with nobody behind it: a host's, closed.
		h := simHost(t, HostConfig{})
		n, addr := networkOf(h), h.Addr().String()
		h.Close()
		start := time.Now()
		c, err := Dial(t.Context(), ClientConfig{Addr: addr, KnownHosts: "-", NoAnswerTimeout: 500 * time.Millisecond,
			Wrap: onNetwork(n, nil)})
		if err == nil {
			c.Close()
			t.Fatal("dial to nobody succeeded")
		}
		var je *JoinError
		if !errors.Is(err, ErrNoAnswer) || !errors.As(err, &je) || je.Failure != JoinNoAnswer {
			t.Errorf("dial to nobody: %v, want a JoinError for ErrNoAnswer", err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("dial to nobody took %v with a 0.5 s no-answer timeout", d)
		}
	})
}

func TestListenContextCloses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		clk := &ManualClock{}
		h, err := Listen(ctx, HostConfig{Addr: "127.0.0.1:0", Clock: clk, Wrap: onNetwork(memnet.New(), nil)})
		if err != nil {
			t.Fatal(err)
		}
		c := pipeJoin(t, h, ClientConfig{Name: "ann", Clock: clk})
		cancel()
		waitFor(t, c, 3*time.Second, func(ev Event) bool { return ev.Kind == EventClosed })
		h.Close()
	})
}

// TestRejoinReplacesDeadConnection: a player whose connection died may join again at
// once under its name with its reconnect token; the old session is dropped and its
// tank despawned. Without the token the name stays taken.
func TestRejoinReplacesDeadConnection(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		clk := &ManualClock{}
		h := simHost(t, HostConfig{Limits: Limits{Timeout: 30 * time.Second}, Clock: clk})
		watcher := h.Local()
		old := testClient(t, h, ClientConfig{Name: "ann", KnownHosts: "-", Timeout: 30 * time.Second})
		tank, err := old.Spawn("ann", 1, tankAt(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		old.conn.(*quicClient).sock.pc.Close() // the old connection dies without a word
		clk.Advance(1300 * time.Millisecond)
		if c, err := dialTest(h, ClientConfig{Name: "ann", KnownHosts: "-"}); err == nil {
			c.Close()
			t.Fatal("name taken over without the reconnect token")
		} else if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "in use") {
			t.Errorf("takeover without the token: %v, want the name refused", err)
		}
		back := testClient(t, h, ClientConfig{Name: "ann", KnownHosts: "-", ReconnectToken: old.ReconnectToken()})
		waitFor(t, watcher, 3*time.Second, func(ev Event) bool { return ev.Kind == EventDespawn && ev.Actor == tank })
		if st := h.Stats(); st.Players != 2 {
			t.Errorf("%d players after the rejoin, want the host and the new ann", st.Players)
		}
		if _, err := back.Spawn("ann", 1, tankAt(0, 0)); err != nil {
			t.Errorf("spawn after rejoin: %v", err)
		}
	})
}

// TestImpairedHostSocket runs a session through an impaired host socket (the
// practice setup wraps the host side too).
func TestImpairedHostSocket(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		link := impair.Link{Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.05, Duplicate: 0.05, Reorder: 0.05}
		n := memnet.New()
		h := testHost(t, HostConfig{Wrap: onNetwork(n, Impaired(link, 3))})
		c := testClient(t, h, ClientConfig{Name: "ann", KnownHosts: "-", Wrap: onNetwork(n, Impaired(link, 4))})
		local := h.Local()
		tank, err := c.Spawn("ann", 1, tankAt(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("host %+v, client %+v", h.Stats(), c.Stats())
			}
		})
		// Publish at a game's pace: QUIC packs datagrams sent at once into one packet,
		// which the link may lose whole.
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for i := 1; i <= 20; i++ {
			<-tick.C
			s := tankAt(float64(i)*0.1, 0)
			s.NumArticulations = 0
			if err := c.Publish(tank, s); err != nil {
				t.Fatal(err)
			}
		}
		waitFor(t, local, 3*time.Second, func(ev Event) bool {
			return ev.Kind == EventState && ev.Actor == tank && ev.State.Position[0] > 1.5
		})
		if st := c.Stats(); !(st.RTT > 70*time.Millisecond && st.RTT < 300*time.Millisecond) {
			t.Errorf("RTT %v through 4 × 20 ms of latency", st.RTT)
		}
	})
}

// TestHostNamesRemoteTanks: a remote player's tanks carry the name the host admitted
// it under, whatever the spawn asks for: a fresh name per spawn (a fresh scoreboard
// line) or another player's name (a disguise in the scoreboard and the chat). The
// host's own code keeps its bots' names: the host's player and a player joined in
// process.
func TestHostNamesRemoteTanks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := simHost(t, HostConfig{Name: "hal"})
		bob := testClient(t, h, ClientConfig{Name: "bob", KnownHosts: "-"})
		eve := testClient(t, h, ClientConfig{Name: "eve", KnownHosts: "-"})
		lab := joinLocal(t, h, LocalConfig{Name: "lab"})
		for _, c := range []struct {
			who       string
			by        *Client
			ask, want string
		}{
			{"a remote player, as another", eve, "bob", "eve"},
			{"a remote player, a fresh name", eve, "eve 2", "eve"},
			{"the host's own player, a bot", h.Local(), "Ariete", "Ariete"},
			{"a player in process, a bot", lab, "Arjun", "Arjun"},
		} {
			id, err := c.by.Spawn(c.ask, 1, tankAt(3, 0))
			if err != nil {
				t.Fatalf("%s: %v", c.who, err)
			}
			waitFor(t, bob, 3*time.Second, func(ev Event) bool {
				if ev.Kind != EventSpawn || ev.Actor != id {
					return false
				}
				if ev.Name != c.want {
					t.Errorf("%s: asked for %q, bob sees %q, want %q", c.who, c.ask, ev.Name, c.want)
				}
				return true
			})
		}
	})
}

// TestRemoteTanksBounded: a remote player owns at most two tanks (it drives one;
// eight with any names and teams got through), however many it asks for; the host's
// own code, a player joined in process, runs as many bots as it likes.
func TestRemoteTanksBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := simHost(t, HostConfig{})
		eve := testClient(t, h, ClientConfig{Name: "eve", KnownHosts: "-"})
		bots := joinLocal(t, h, LocalConfig{Name: "bots"})
		for _, c := range []struct {
			who   string
			by    *Client
			asked int
			want  int
		}{
			{"a remote player", eve, 8, 2},
			{"the host's bots", bots, 12, 12},
		} {
			got := 0
			for i := range c.asked {
				if _, err := c.by.Spawn(fmt.Sprintf("tank %d", i), 1, tankAt(float64(i), 0)); err == nil {
					got++
				}
			}
			if got != c.want {
				t.Errorf("%s asked for %d tanks and got %d, want %d", c.who, c.asked, got, c.want)
			}
		}
	})
}

// TestChatUnderTheHostsName: chat shows under the name the host admitted its sender
// under, not a name the sender gave its tank (eve chatted as bob).
func TestChatUnderTheHostsName(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := simHost(t, HostConfig{})
		bob := testClient(t, h, ClientConfig{Name: "bob", KnownHosts: "-"})
		eve := testClient(t, h, ClientConfig{Name: "eve", KnownHosts: "-"})
		if _, err := eve.Spawn("bob", 1, tankAt(3, 0)); err != nil {
			t.Fatal(err)
		}
		if err := eve.Chat("surrender"); err != nil {
			t.Fatal(err)
		}
		waitFor(t, bob, 3*time.Second, func(ev Event) bool {
			if ev.Kind != EventChat {
				return false
			}
			if ev.Name != "eve" {
				t.Errorf("eve's chat shows under %q, want eve", ev.Name)
			}
			return true
		})
	})
}
