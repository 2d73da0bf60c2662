package game

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/referee"
	tankspec "github.com/treadline/treadline/tank"
	"github.com/treadline/treadline/terrain"
)

// startLink is the bad link of the report of a late start: 300 ± 60 ms each way,
// 20% loss.
var startLink = impair.Link{Latency: 300 * time.Millisecond, Jitter: 60 * time.Millisecond, Loss: 0.2}

// TestOverQUIC runs the package's tests that play over real QUIC on loopback in
// real time, held to delay bounds: together, since they mostly sleep between frames,
// and apart from every other test. It runs in the sequential phase of the package's
// tests, before any parallel one starts, so no simulation takes the processors from
// them.
func TestOverQUIC(t *testing.T) {
	if testing.Short() {
		t.Skip("real-time network tests; skipped with -short")
	}
	for _, c := range []struct {
		name string
		test func(*testing.T)
	}{
		{"RemoteStartsOverBadLink", remoteStartsOverBadLink},
		{"KeyToShownMotionAt150ms", keyToShownMotionAt150ms},
		{"RemotePivotOverBadLink", remotePivotOverBadLink},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.test(t)
		})
	}
}

// remoteStartsOverBadLink reproduces a remote tank that started moving 1.6 s after
// its owner pressed W, with the real host's run loop and a real client over loopback
// QUIC through the impairment (300 ± 60 ms, 20% loss), as a player would see it. The
// cause was the publisher's threshold, grown with the distance to the nearest other
// tank (0.03 m + 5 mm per meter, 0.78 m at 150 m): a start was not published until the
// tank had rolled that far, 0.3–0.5 s, and a lost update added the time to roll as far
// again. Watched through a chase camera or a sight, a far tank is no less visible. Now
// the threshold does not grow, and a start goes out the frame the tank passes
// StartSpeed, followed up twice. Four starts, on two pairs of a host and a client at
// once (each link's losses drawn apart), are held to: each published within a tenth of
// a second of the tank moving (host clock), and shown moving within the latency, its
// jitter and 0.15 s (plus scheduling slack for a loaded machine) at the median.
func remoteStartsOverBadLink(t *testing.T) {
	checkStarts(t, startLink, 2, 2)
}

// keyToShownMotionAt150ms measures a start as a player watching from the far side
// sees it, from the owner's key to the remote tank shown moving, over the link of
// the lab's goals (150 ± 30 ms one way, 10% loss), with the real host's run loop and
// a real client over loopback QUIC, six starts on three pairs of a host and a client
// at once (each link's losses drawn apart). Each start is split into the owner's own
// acceleration (key to the truth moving faster than 0.2 m/s, the lab's rest speed:
// physics), the publisher (the truth moving to the start's update sent; negative
// when it goes out before the truth reaches 0.2 m/s, at StartSpeed) and the link and
// the remote's reckoning (sent to shown moving the same way). The lab's
// start_delay_p95_s is the last two together: from the truth moving to the display
// moving. The starts are held to the same goals as over the bad link.
func keyToShownMotionAt150ms(t *testing.T) {
	checkStarts(t, impair.Link{Latency: 150 * time.Millisecond, Jitter: 30 * time.Millisecond, Loss: 0.1}, 3, 2)
}

// startTimes are the wall-clock times of one start, s since the key was pressed, how
// long the guest had shown the tank at rest when the key was pressed, s (zero if it
// still showed it moving), and the longest a frame of the test's loop came late
// between the key and the truth moving, s: a frame held up by a loaded machine steps
// the tank late, which is the machine's time, not the physics'.
type startTimes struct{ moved, published, shown, rested, stall float64 }

// checkStarts plays starts of a host's tank from rest (W held 1.5 s, then 2.5 s at
// rest) watched by a client over link, on pairs of a host and a client at once, logs
// each start's split (and how long the guest had shown the tank at rest before it)
// and holds them to the goals: published within 0.1 s of the tank moving, and shown
// moving within the latency, its jitter and 0.15 s (plus slack for a loaded machine)
// at the median.
func checkStarts(t *testing.T, link impair.Link, pairs, starts int) {
	got := playStarts(t, link, pairs, starts)
	if len(got) != pairs*starts {
		t.Fatalf("%d starts seen, want %d", len(got), pairs*starts)
	}
	lat := link.Latency.Seconds() + link.Jitter.Seconds()
	const slack = 0.15 // a frame or two of a loaded machine, on each match
	var shown []float64
	for i, s := range got {
		t.Logf("start %d, shown at rest for %.2f s before: key to truth moving %.3f s (physics), to sent %+.3f s (publisher), to shown %.3f s (link); key to shown %.3f s, truth moving to shown %.3f s; frames late by up to %.3f s",
			i+1, s.rested, s.moved, s.published-s.moved, s.shown-s.published, s.shown, s.shown-s.moved, s.stall)
		if d := s.published - s.moved; !(d <= 0.1) {
			t.Errorf("start %d published %.3f s after the tank moved, want within 0.1 s", i+1, d)
		}
		if !(s.moved <= 0.2+s.stall) {
			t.Errorf("start %d: the tank moved %.3f s after the key, want within 0.2 s and the %.3f s its frames came late", i+1, s.moved, s.stall)
		}
		shown = append(shown, s.shown-s.moved)
	}
	slices.Sort(shown)
	if median := shown[len(shown)/2]; !(median <= lat+0.15+slack) {
		t.Errorf("starts shown %.3f s after the tank moved (median of %.3f), want within %.2f s", median, shown, lat+0.15+slack)
	}
}

// hostsAndGuests starts pairs of a real host's run loop with a match of one tank
// ("host") and a real client over loopback QUIC through link, its draws seeded apart
// for each pair, with a match of its own ("guest"). The pairs connect at once (a
// handshake over a bad link takes seconds); all close when the test ends.
func hostsAndGuests(t *testing.T, link impair.Link, pairs int) (hosts, guests []*Match) {
	t.Helper()
	mp := testmaps.Small(t)
	hosts, guests = make([]*Match, pairs), make([]*Match, pairs)
	errs := make([]error, pairs)
	var wg sync.WaitGroup
	for i := range pairs {
		wg.Go(func() { hosts[i], guests[i], errs[i] = hostAndGuest(t, mp, link, uint64(7+i)) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return hosts, guests
}

// hostAndGuest starts one pair of hostsAndGuests, its link's draws seeded with seed.
func hostAndGuest(t *testing.T, mp *terrain.Map, link impair.Link, seed uint64) (host, guest *Match, err error) {
	ctx := context.Background()
	lo, hi := mp.Min(), mp.Max()
	extent := math.Max(math.Max(-lo[0], -lo[1]), math.Max(hi[0], hi[1]))
	h, err := net.Listen(ctx, net.HostConfig{Addr: "127.0.0.1:0", Name: "host", Mover: referee.NewMover(tankspec.Spec{}, nil),
		Match: net.MatchSettings{Map: mp.Name(), Extent: extent}})
	if err != nil {
		return nil, nil, err
	}
	t.Cleanup(func() { h.Close() })
	if host, err = NewMatch(Config{Map: mp, Name: "host", Seed: 1}, h.Local()); err != nil {
		return nil, nil, fmt.Errorf("host's match: %w", err)
	}
	client, err := net.Dial(ctx, net.ClientConfig{Addr: h.Addr().String(), Fingerprint: h.Fingerprint(), KnownHosts: "-",
		Name: "guest", Wrap: net.Impaired(link, seed)})
	if err != nil {
		return nil, nil, err
	}
	t.Cleanup(func() { client.Close() })
	if guest, err = NewMatch(Config{Map: mp, Name: "guest", Seed: 2}, client); err != nil {
		return nil, nil, fmt.Errorf("guest's match: %w", err)
	}
	return host, guest, nil
}

// playStarts runs pairs of a host and a client at once, each for starts starts, and
// returns the times of every start.
func playStarts(t *testing.T, link impair.Link, pairs, starts int) []startTimes {
	const (
		settle, drive, stand = 2.5, 1.5, 2.5 // s
		moving               = 0.2           // m/s: the lab's rest speed
	)
	type pair struct {
		host, guest      *Match
		id               uint32
		cur              int       // the start under way, in got, or -1
		key, shownMoving time.Time // its key; when the guest last showed the tank moving
	}
	hosts, guests := hostsAndGuests(t, link, pairs)
	ps := make([]pair, pairs)
	for i, h := range hosts {
		id, _ := h.Self()
		ps[i] = pair{host: h, guest: guests[i], id: id, cur: -1}
	}
	begin := time.Now()
	for i := range ps {
		ps[i].shownMoving = begin
	}
	var hs, gs Snapshot
	var got []startTimes
	last := begin // the loop's previous frame
	horizontal := func(v mgl64.Vec3) mgl64.Vec3 { return mgl64.Vec3{v[0], 0, v[2]} }
	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	for el := 0.0; el < settle+float64(starts)*(drive+stand); el = time.Since(begin).Seconds() {
		<-tick.C
		frame := time.Now()
		late := max(0, frame.Sub(last).Seconds()-1.0/60)
		last = frame
		in := physics.Input{}
		if u := el - settle; u > 0 && math.Mod(u, drive+stand) < drive {
			in.Throttle = 1
		}
		for i := range ps {
			p := &ps[i]
			if err := p.host.Step(p.host.Now(), in); err != nil {
				t.Fatal(err)
			}
			if err := p.guest.Step(p.guest.Now(), physics.Input{}); err != nil {
				t.Fatal(err)
			}
			p.host.Snapshot(&hs)
			p.guest.Snapshot(&gs)
			self, seen := viewOf(t, &hs, p.id), viewOf(t, &gs, p.id)
			now := time.Now()
			switch {
			case in.Throttle == 0:
				p.cur = -1
			case p.cur < 0:
				// The key is read by this frame's step, the guest's view by the last.
				got = append(got, startTimes{moved: math.NaN(), published: math.NaN(), shown: math.NaN(),
					rested: now.Sub(p.shownMoving).Seconds()})
				p.cur, p.key = len(got)-1, now
			}
			if horizontal(seen.Velocity).Len() > moving {
				p.shownMoving = now
			}
			if p.cur < 0 {
				continue
			}
			cur, since := &got[p.cur], now.Sub(p.key).Seconds()
			if math.IsNaN(cur.moved) && since > 0 {
				cur.stall = max(cur.stall, late)
			}
			if math.IsNaN(cur.moved) && horizontal(self.Velocity).Len() > moving {
				cur.moved = since
			}
			if math.IsNaN(cur.published) && horizontal(knownOf(t, &hs, p.id).LastKnown.Velocity).Len() > 0 {
				cur.published = since
			}
			// Shown moving the same way as the truth, as the lab measures it.
			if math.IsNaN(cur.shown) && !math.IsNaN(cur.moved) && horizontal(seen.Velocity).Dot(horizontal(self.Velocity).Normalize()) > moving {
				cur.shown = since
			}
		}
	}
	return got
}
