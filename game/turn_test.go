package game

import (
	"math"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/physics"
)

// turnLink is the link of the report of a turn in place shown overshooting and
// driving: 150 ± 30 ms each way, 10% loss.
var turnLink = impair.Link{Latency: 150 * time.Millisecond, Jitter: 30 * time.Millisecond, Loss: 0.1}

// remotePivotOverBadLink (run by TestOverQUIC) turns the host's tank in place, left
// and right, with the real host's run loop and a real client over loopback QUIC
// through the impairment (150 ± 30 ms, 10% loss), as a player watching it would. A player reported a remote
// tank turning in place shown at 16–26 km/h; the truth of a pivot does not move
// (physics turns a hull about its centre), and neither does its reckoning: the
// shown ground speed is held to 0.5 m/s, or the truth's own if faster. Two pairs of
// a host and a client play at once, each link's losses drawn apart, each turning its
// tank left, then right.
func remotePivotOverBadLink(t *testing.T) {
	const (
		settle, turn, stand = 2.5, 1.5, 2 // s
		pairs, turns        = 2, 2        // each pair turns left, then right
	)
	type pair struct {
		host, guest *Match
		id          uint32
	}
	hosts, guests := hostsAndGuests(t, turnLink, pairs)
	ps := make([]pair, pairs)
	for i, h := range hosts {
		id, _ := h.Self()
		ps[i] = pair{h, guests[i], id}
	}
	var hs, gs Snapshot
	maxTrue, maxShown := 0.0, 0.0
	speed := func(v mgl64.Vec3) float64 { return math.Hypot(v[0], v[2]) }
	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	begin := time.Now()
	for el := 0.0; el < settle+turns*(turn+stand); el = time.Since(begin).Seconds() {
		<-tick.C
		in := physics.Input{}
		if u := el - settle; u > 0 && math.Mod(u, turn+stand) < turn {
			in.Steer = 1
			if int(u/(turn+stand))%2 == 1 {
				in.Steer = -1
			}
		}
		for _, p := range ps {
			if err := p.host.Step(p.host.Now(), in); err != nil {
				t.Fatal(err)
			}
			if err := p.guest.Step(p.guest.Now(), physics.Input{}); err != nil {
				t.Fatal(err)
			}
			p.host.Snapshot(&hs)
			p.guest.Snapshot(&gs)
			if el < settle {
				continue
			}
			self, seen := viewOf(t, &hs, p.id), viewOf(t, &gs, p.id)
			maxTrue, maxShown = math.Max(maxTrue, speed(self.Velocity)), math.Max(maxShown, speed(seen.Velocity))
		}
	}
	t.Logf("largest speed: true %.2f m/s, shown %.2f m/s", maxTrue, maxShown)
	if maxShown > math.Max(0.5, maxTrue) {
		t.Errorf("a tank turning in place (at most %.2f m/s) shown at %.2f m/s, want ≤ %.2f", maxTrue, maxShown, math.Max(0.5, maxTrue))
	}
}
