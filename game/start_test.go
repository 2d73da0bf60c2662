package game

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/referee"
	tankspec "github.com/treadline/treadline/tank"
)

// startLink is the bad link of the report of a late start: 300 ± 60 ms each way,
// 20% loss.
var startLink = impair.Link{Latency: 300 * time.Millisecond, Jitter: 60 * time.Millisecond, Loss: 0.2}

// TestRemoteStartsOverBadLink reproduces a remote tank that started moving 1.6 s after
// its owner pressed W, with the real host's run loop and a real client over loopback
// QUIC through the impairment (300 ± 60 ms, 20% loss), as a player would see it. The
// cause was the publisher's threshold, grown with the distance to the nearest other
// tank (0.03 m + 5 mm per meter, 0.78 m at 150 m): a start was not published until the
// tank had rolled that far, 0.3–0.5 s, and a lost update added the time to roll as far
// again. Watched through a chase camera or a sight, a far tank is no less visible. Now
// the threshold does not grow, and a start goes out the frame the tank passes
// StartSpeed, followed up twice. Each start is held to: published within a tenth of
// a second of the tank moving (host clock), and shown moving within the latency, its
// jitter and 0.15 s (plus scheduling slack for a loaded machine) in two starts of three.
func TestRemoteStartsOverBadLink(t *testing.T) {
	if testing.Short() {
		t.Skip("real-time network test; skipped with -short")
	}
	t.Parallel()
	mp := testmaps.Small(t)
	ctx := context.Background()
	lo, hi := mp.Min(), mp.Max()
	extent := math.Max(math.Max(-lo[0], -lo[1]), math.Max(hi[0], hi[1]))
	h, err := net.Listen(ctx, net.HostConfig{Addr: "127.0.0.1:0", Name: "host", Mover: referee.NewMover(tankspec.Spec{}, nil),
		Match: net.MatchSettings{Map: mp.Name(), Extent: extent}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	host := mustMatch(t, Config{Map: mp, Name: "host", Seed: 1}, h.Local())
	client, err := net.Dial(ctx, net.ClientConfig{Addr: h.Addr().String(), Fingerprint: h.Fingerprint(), KnownHosts: "-",
		Name: "guest", Wrap: net.Impaired(startLink, 7)})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	guest := mustMatch(t, Config{Map: mp, Name: "guest", Seed: 2}, client)
	id, _ := host.Self()

	const (
		settle, drive, stand = 2.5, 1.5, 2.5 // s
		starts               = 3
		moving               = 0.2 // m/s: the lab's rest speed
	)
	var hs, gs Snapshot
	type start struct{ moved, published, shown float64 } // host clock; wall clock since moved for shown
	var got []start
	var cur *start
	var movedWall time.Time
	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	begin := time.Now()
	for el := 0.0; el < settle+starts*(drive+stand); el = time.Since(begin).Seconds() {
		<-tick.C
		in := physics.Input{}
		if u := el - settle; u > 0 && math.Mod(u, drive+stand) < drive {
			in.Throttle = 1
		}
		if err := host.Step(host.Now(), in); err != nil {
			t.Fatal(err)
		}
		if err := guest.Step(guest.Now(), physics.Input{}); err != nil {
			t.Fatal(err)
		}
		host.Snapshot(&hs)
		guest.Snapshot(&gs)
		self, seen := viewOf(t, &hs, id), viewOf(t, &gs, id)
		speed := func(v mgl64.Vec3) float64 { return math.Hypot(v[0], v[2]) }
		switch {
		case in.Throttle == 0:
			cur = nil
		case cur == nil && speed(self.Velocity) > moving:
			got = append(got, start{moved: host.Now(), published: math.NaN(), shown: math.NaN()})
			cur, movedWall = &got[len(got)-1], time.Now()
		}
		if cur == nil {
			continue
		}
		if math.IsNaN(cur.published) && speed(self.LastKnown.Velocity) > 0 {
			cur.published = host.Now()
		}
		if math.IsNaN(cur.shown) && speed(seen.Velocity) > moving {
			cur.shown = time.Since(movedWall).Seconds()
		}
	}
	if len(got) != starts {
		t.Fatalf("%d starts seen, want %d", len(got), starts)
	}
	lat := startLink.Latency.Seconds() + startLink.Jitter.Seconds()
	const slack = 0.15 // a frame or two of a loaded machine, on each match
	var shown []float64
	for i, s := range got {
		t.Logf("start %d: published %.3f s after the tank moved, shown %.3f s after", i+1, s.published-s.moved, s.shown)
		if d := s.published - s.moved; !(d <= 0.1) {
			t.Errorf("start %d published %.3f s after the tank moved, want within 0.1 s", i+1, d)
		}
		shown = append(shown, s.shown)
	}
	slices.Sort(shown)
	if median := shown[1]; !(median <= lat+0.15+slack) {
		t.Errorf("starts shown %.3f s after the tank moved (median), want within %.2f s", shown, lat+0.15+slack)
	}
}
