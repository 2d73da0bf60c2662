package agones_test

import (
	"context"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/treadline/treadline/cmd/tankhost/internal/agones"
	"github.com/treadline/treadline/cmd/tankhost/internal/agones/agonestest"
)

// wait bounds every poll in these tests; they end as soon as the condition holds.
const wait = 10 * time.Second

func newSDK(t *testing.T, side agonestest.Server) *agones.SDK {
	t.Helper()
	sdk := agones.New(agones.Config{Addr: net.JoinHostPort(agones.Host, side.Port()), MinBackoff: time.Millisecond,
		MaxBackoff: 20 * time.Millisecond, RequestTimeout: time.Second})
	t.Cleanup(sdk.Close)
	return sdk
}

func flush(t *testing.T, sdk *agones.SDK) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := sdk.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestLifecycle, against Agones' sdk-server where it is installed and the fake
// elsewhere: metadata reaches the GameServer before Ready, then Allocate and Shutdown
// move it through its states; nothing is sent after Shutdown; the server accepts
// every call and its GameServer decodes.
func TestLifecycle(t *testing.T) {
	side := agonestest.Start(t, "203.0.113.9", "game", 7311)
	sdk := newSDK(t, side)
	fp := strings.Repeat("ab", 32) // 64 hex digits: too long for a label value
	sdk.SetAnnotation("fingerprint", fp)
	sdk.SetLabel("map", "valley")
	sdk.SetLabel("players", "0")
	sdk.Ready()
	flush(t, sdk)
	want := []string{"/metadata/annotation", "/metadata/label", "/metadata/label", "/ready"}
	side.Wait(t, wait, "the calls logged", func() bool { return len(side.Accepted()) >= len(want) })
	if got := side.Accepted(); !slices.Equal(got, want) {
		t.Fatalf("calls %v, want %v", got, want)
	}
	sdk.SetLabel("players", "1")
	sdk.Allocate()
	flush(t, sdk)
	sdk.SetLabel("players", "0")
	sdk.Shutdown()
	sdk.SetLabel("players", "9") // after Shutdown: never sent
	sdk.Ready()
	flush(t, sdk)
	side.Wait(t, wait, "Shutdown logged", func() bool { return side.Count("/shutdown") == 1 })

	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	gs, err := sdk.GameServer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if gs.Status.State != agones.StateShutdown || gs.Status.Address != "203.0.113.9" || gs.Status.Port("game") != 7311 ||
		gs.ObjectMeta.Name != "tankhost-test" {
		t.Errorf("game server %+v", gs)
	}
	if gs.ObjectMeta.Annotations[agones.LabelPrefix+"fingerprint"] != fp {
		t.Errorf("annotations %v, want the fingerprint", gs.ObjectMeta.Annotations)
	}
	if l := gs.ObjectMeta.Labels; l[agones.LabelPrefix+"map"] != "valley" || l[agones.LabelPrefix+"players"] != "0" {
		t.Errorf("labels %v, want map valley and 0 players", l)
	}
	wantStates := []string{agones.StateScheduled, agones.StateReady, agones.StateAllocated, agones.StateShutdown}
	if st := agonestest.Lifecycle(side.States()); !slices.Equal(st, wantStates) {
		t.Errorf("states %v, want %v", st, wantStates)
	}
	if n := side.Count("/ready"); n != 1 {
		t.Errorf("%d Ready calls, want 1 (none after Shutdown)", n)
	}
	calls := len(side.Accepted()) - side.Count("/gameserver")
	if st := sdk.Stats(); st.Failures != 0 || st.Pending != 0 || st.Calls != uint64(calls) {
		t.Errorf("stats %+v after %d calls", st, calls)
	}
}

// TestRetriesThrough500s: a sidecar that fails calls is retried until they succeed,
// in order.
func TestRetriesThrough500s(t *testing.T) {
	side := agonestest.New(t, "203.0.113.9", "game", 7311)
	failures := 0
	side.SetHook(func(c agonestest.Call) int {
		if failures < 5 {
			failures++
			return http.StatusInternalServerError
		}
		return 0
	})
	sdk := newSDK(t, side)
	sdk.SetLabel("map", "valley")
	sdk.Ready()
	flush(t, sdk)
	var ok []string
	for _, c := range side.Calls() {
		if c.Status == http.StatusOK {
			ok = append(ok, c.Path)
		}
	}
	if !slices.Equal(ok, []string{"/metadata/label", "/ready"}) {
		t.Errorf("accepted calls %v, want the label then Ready", ok)
	}
	if st := sdk.Stats(); st.Failures != 5 || st.Calls != 2 {
		t.Errorf("stats %+v, want 5 failures and 2 calls", st)
	}
}

// TestSidecarVanishes: calls made while the sidecar is gone are delivered once it is
// back on its port.
func TestSidecarVanishes(t *testing.T) {
	side := agonestest.New(t, "203.0.113.9", "game", 7311)
	sdk := newSDK(t, side)
	side.Stop()
	sdk.Ready()
	side.Wait(t, wait, "failed attempts", func() bool { return sdk.Stats().Failures >= 3 })
	if st := sdk.Stats(); st.Pending != 1 {
		t.Errorf("pending %d while the sidecar is gone, want 1", st.Pending)
	}
	side.Start()
	flush(t, sdk)
	if side.Count("/ready") != 1 || side.GameServer().Status.State != agones.StateReady {
		t.Errorf("after the sidecar came back: calls %v, state %s", side.Calls(), side.GameServer().Status.State)
	}
}

// TestMalformedCallDropped: a call the sidecar refuses as malformed (400) is dropped,
// not retried forever in front of the others.
func TestMalformedCallDropped(t *testing.T) {
	side := agonestest.New(t, "203.0.113.9", "game", 7311)
	sdk := newSDK(t, side)
	sdk.SetLabel("not a key!", "x")
	sdk.Ready()
	flush(t, sdk)
	if side.Count("/ready") != 1 || side.Count("/metadata/label") != 0 {
		t.Errorf("calls %v, want the label refused once and Ready accepted", side.Calls())
	}
	if st := sdk.Stats(); st.Failures != 1 {
		t.Errorf("%d failures, want 1", st.Failures)
	}
}

// TestKeepHealthy drives the health loop with a hand-made ticker: a ping per tick
// while the match loop beats, none while it is stalled, and a failing sidecar only
// counts failures.
func TestKeepHealthy(t *testing.T) {
	side := agonestest.New(t, "203.0.113.9", "game", 7311)
	sdk := newSDK(t, side)
	ctx, cancel := context.WithCancel(context.Background())
	ticks := make(chan time.Time)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sdk.KeepHealthy(ctx, ticks)
	}()
	defer func() { cancel(); <-done }()
	tick := func() { ticks <- time.Time{} }

	for i := 1; i <= 3; i++ {
		sdk.Beat()
		tick()
		side.Wait(t, wait, "health ping", func() bool { return side.Count("/health") == i })
	}
	// The loop stalls: ticks come, no beats, no pings.
	for i := 1; i <= 4; i++ {
		tick()
		side.Wait(t, wait, "withheld ping", func() bool { return sdk.Stats().Withheld == uint64(i) })
	}
	if n := side.Count("/health"); n != 3 {
		t.Errorf("%d pings after the loop stalled, want still 3", n)
	}
	// Many beats between two ticks make one ping.
	for range 50 {
		sdk.Beat()
	}
	tick()
	side.Wait(t, wait, "ping after the loop recovered", func() bool { return side.Count("/health") == 4 })
	// A failing sidecar: counted, and the loop goes on.
	side.SetHook(func(c agonestest.Call) int { return http.StatusInternalServerError })
	sdk.Beat()
	tick()
	side.Wait(t, wait, "failed ping", func() bool { return sdk.Stats().HealthFailures == 1 })
	side.SetHook(nil)
	sdk.Beat()
	tick()
	// The sidecar counts a ping when it arrives, the SDK when its answer has: wait
	// for both, so that the stats below are not read between the two.
	side.Wait(t, wait, "ping after the failure", func() bool {
		return side.Count("/health") == 5 && sdk.Stats().Health == 5
	})
	if st := sdk.Stats(); st.Health != 5 || st.Withheld != 4 {
		t.Errorf("stats %+v, want 5 pings and 4 withheld", st)
	}
}

func TestGameServer(t *testing.T) {
	side := agonestest.New(t, "203.0.113.9", "game", 7311)
	sdk := newSDK(t, side)
	sdk.Ready()
	flush(t, sdk)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	gs, err := sdk.GameServer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if gs.Status.State != agones.StateReady || gs.Status.Address != "203.0.113.9" || gs.Status.Port("game") != 7311 ||
		gs.Status.Port("other") != 0 || gs.ObjectMeta.Name != "tankhost-test" {
		t.Errorf("game server %+v", gs)
	}
	if pub, err := sdk.WaitPublic(ctx); err != nil || pub.Status.Address != "203.0.113.9" {
		t.Errorf("WaitPublic: %+v, %v", pub, err)
	}
	side.Stop()
	if _, err := sdk.GameServer(ctx); err == nil {
		t.Error("no error from a vanished sidecar")
	}
	short, cancelShort := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancelShort()
	if _, err := sdk.WaitPublic(short); err == nil {
		t.Error("WaitPublic returned without a sidecar")
	}
}

func TestAddrFromEnv(t *testing.T) {
	for _, tc := range []struct {
		port, want string
		ok         bool
	}{
		{"", "127.0.0.1:9358", true},
		{"59358", "127.0.0.1:59358", true},
		{"0", "", false},
		{"70000", "", false},
		{"http", "", false},
	} {
		got, err := agones.AddrFromEnv(func(k string) string {
			if k != agones.PortEnv {
				t.Errorf("looked up %q", k)
			}
			return tc.port
		})
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("port %q: %q, %v; want %q, ok %v", tc.port, got, err, tc.want, tc.ok)
		}
	}
}

func TestLabelValue(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"valley", "valley"},
		{"Valley 2", "Valley-2"},
		{"-odd_name.", "odd_name"},
		{"carré", "carr"},
		{strings.Repeat("x", 70), strings.Repeat("x", 63)},
		{"", ""},
		{"!!!", ""},
	} {
		got := agones.LabelValue(tc.in)
		if got != tc.want || !agones.ValidLabelValue(got) {
			t.Errorf("LabelValue(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if agones.ValidLabelValue("a b") || agones.ValidLabelValue(strings.Repeat("y", 64)) {
		t.Error("invalid label values reported valid")
	}
}

// FuzzLabelValue: whatever a map is called, the label made of its name is valid,
// and making it again changes nothing.
func FuzzLabelValue(f *testing.F) {
	for _, s := range []string{"valley", "Valley 2", "-x-", "carré", strings.Repeat("ab", 40), "", "\x00\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := agones.LabelValue(s)
		if len(v) > 63 || !agones.ValidLabelValue(v) || agones.LabelValue(v) != v {
			t.Fatalf("LabelValue(%q) = %q", s, v)
		}
		for i := 0; i < len(v); i++ {
			c := v[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
				t.Fatalf("LabelValue(%q) = %q holds %q", s, v, c)
			}
		}
		if v != "" && (strings.IndexAny(v[:1], "-_.") == 0 || strings.IndexAny(v[len(v)-1:], "-_.") == 0) {
			t.Fatalf("LabelValue(%q) = %q does not begin and end alphanumeric", s, v)
		}
	})
}
