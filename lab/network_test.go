package lab

import (
	"math"
	"testing"

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
	n, err := NewNetwork(NetworkConfig{Latency: 0.15}, 1)
	if err != nil {
		t.Fatal(err)
	}
	n.Send(stamped(1), 1)
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
	n, _ := NewNetwork(NetworkConfig{}, 1)
	n.Send(stamped(2), 2)
	if got := n.Deliver(nil, 2); len(got) != 0 {
		t.Errorf("a frame read its own instant's update: %d delivered", len(got))
	}
	if got := n.Deliver(nil, 2+1.0/60); len(got) != 1 || got[0].Arrival != 2 {
		t.Errorf("next frame: %+v, want one update that arrived at 2", got)
	}
}

func TestNetworkLossAndJitterAreSeeded(t *testing.T) {
	cfg := NetworkConfig{Latency: 0.1, Jitter: 0.05, Loss: 0.2}
	run := func(seed uint64) []Delivery {
		n, err := NewNetwork(cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2000; i++ {
			n.Send(stamped(float64(i)*0.01), float64(i)*0.01)
		}
		out := n.Deliver(nil, 1e9)
		if n.Sent() != 2000 || n.Lost()+n.Delivered() != 2000 || n.Delivered() != len(out) {
			t.Fatalf("counts: sent %d lost %d delivered %d (out %d)", n.Sent(), n.Lost(), n.Delivered(), len(out))
		}
		return out
	}
	a, b, c := run(7), run(7), run(8)
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
	reordered := 0
	for i, d := range a {
		delay := d.Arrival - d.State.Time
		if delay < 0.05-1e-12 || delay > 0.15+1e-12 {
			t.Fatalf("delivery %d delayed %v s, want 0.1 ± 0.05 s", i, delay)
		}
		if i > 0 && d.Arrival < a[i-1].Arrival {
			t.Fatalf("delivery %d out of arrival order", i)
		}
		if i > 0 && d.State.Time < a[i-1].State.Time {
			reordered++
		}
	}
	if reordered == 0 {
		t.Error("±50 ms jitter on updates 10 ms apart reordered none")
	}
}

func TestNetworkRejectsNonsense(t *testing.T) {
	for _, c := range []NetworkConfig{
		{Latency: -0.1}, {Latency: math.NaN()}, {Jitter: math.Inf(1)}, {Loss: 1.5}, {Loss: -0.1},
	} {
		if _, err := NewNetwork(c, 1); err == nil {
			t.Errorf("NewNetwork(%+v) accepted it", c)
		}
	}
}
