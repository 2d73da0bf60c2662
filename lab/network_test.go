package lab

import (
	"math"
	"testing"

	"github.com/treadline/treadline/internal/units"
	"github.com/treadline/treadline/net/impair"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
)

// stamped returns a state whose Time marks it.
func stamped(t float64) deadreckon.State {
	s := deadreckon.NewState(mgl64.Vec3{t, 0, 0})
	s.Time = t
	return s
}

func TestNetworkDelaysByLatency(t *testing.T) {
	n, err := NewNetwork(impair.Link{Latency: units.Duration(0.15)}, 1)
	if err != nil {
		t.Fatal(err)
	}
	n.Send(stamped(1), false, 1)
	var buf []Delivery
	for _, c := range []struct {
		now  float64
		want int
	}{{1.0, 0}, {1.1, 0}, {1.15, 0}, {1.15 + 1e-6, 1}} {
		buf = n.Deliver(buf[:0], c.now)
		if len(buf) != c.want {
			t.Fatalf("at %v: %d delivered, want %d", c.now, len(buf), c.want)
		}
	}
	if buf[0].Arrival != 1.15 || buf[0].State.Time != 1 {
		t.Errorf("delivered %+v at %v, want the state of t=1 arriving at 1.15", buf[0].State.Time, buf[0].Arrival)
	}
}

func TestNetworkZeroDelayHoldsOneFrame(t *testing.T) {
	n, _ := NewNetwork(impair.Link{}, 1)
	n.Send(stamped(2), false, 2)
	if got := n.Deliver(nil, 2); len(got) != 0 {
		t.Errorf("a frame read its own instant's update: %d delivered", len(got))
	}
	if got := n.Deliver(nil, 2+1.0/60); len(got) != 1 || got[0].Arrival != 2 {
		t.Errorf("next frame: %+v, want one update that arrived at 2", got)
	}
}

func TestNetworkLossAndJitterAreSeeded(t *testing.T) {
	cfg := impair.Link{Latency: units.Duration(0.1), Jitter: units.Duration(0.05), Loss: 0.2}
	run := func(seed uint64, l impair.Link) []Delivery {
		n, err := NewNetwork(l, seed)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2000; i++ {
			n.Send(stamped(float64(i)*0.01), false, float64(i)*0.01)
		}
		out := n.Deliver(nil, 1e9)
		if n.sent != 2000 || n.Lost()+n.delivered < 2000 || n.delivered != len(out) {
			t.Fatalf("counts: sent %d lost %d delivered %d (out %d)", n.sent, n.Lost(), n.delivered, len(out))
		}
		return out
	}
	a, b, c := run(7, cfg), run(7, cfg), run(8, cfg)
	if len(a) != len(b) {
		t.Fatalf("same seed: %d and %d delivered", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed differs at delivery %d: %+v vs %+v", i, a[i], b[i])
		}
	}
	same := len(a) == len(c)
	for i := 0; same && i < len(a); i++ {
		same = a[i] == c[i]
	}
	if same {
		t.Error("seeds 7 and 8 gave identical deliveries")
	}
	// 20% loss of 2000: 400 ± 4σ (σ ≈ 17.9).
	if lost := 2000 - len(a); math.Abs(float64(lost)-400) > 72 {
		t.Errorf("lost %d of 2000 at 20%% loss, want 400 ± 72", lost)
	}
	// The link model of net/impair: jitter delays, never reorders.
	for i, d := range a {
		delay := d.Arrival - d.State.Time
		if delay < 0.05-1e-9 {
			t.Fatalf("delivery %d delayed %v s, want at least 0.1 − 0.05 s", i, delay)
		}
		if i > 0 && (d.Arrival < a[i-1].Arrival || d.State.Time < a[i-1].State.Time) {
			t.Fatalf("delivery %d out of order under jitter alone", i)
		}
	}
	// Reordering holds some back; bursts keep the loss rate with longer runs.
	r := run(7, impair.Link{Latency: units.Duration(0.1), Reorder: 0.1})
	reordered := 0
	for i := 1; i < len(r); i++ {
		if r[i].State.Time < r[i-1].State.Time {
			reordered++
		}
	}
	if reordered < 100 || reordered > 300 {
		t.Errorf("10%% reorder: %d of 2000 overtaken, want about 200", reordered)
	}
	burst := run(7, impair.Link{Loss: 0.3, LossBurst: 4})
	runs, prev := 0, -1.0
	for _, d := range burst {
		if gap := d.State.Time - prev; gap > 0.015 {
			runs++
		}
		prev = d.State.Time
	}
	lost := 2000 - len(burst)
	if math.Abs(float64(lost)-600) > 150 || float64(lost)/float64(runs) < 3 {
		t.Errorf("30%% loss in bursts of 4: %d lost in %d runs", lost, runs)
	}
}

func TestNetworkRejectsNonsense(t *testing.T) {
	for _, c := range []impair.Link{
		{Latency: units.Duration(-0.1)}, {Jitter: -1}, {Loss: 1.5}, {Loss: -0.1}, {Reorder: 2}, {LossBurst: math.NaN()},
	} {
		if _, err := NewNetwork(c, 1); err == nil {
			t.Errorf("NewNetwork(%+v) accepted it", c)
		}
	}
}
