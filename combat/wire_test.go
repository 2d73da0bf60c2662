package combat

import (
	"math"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/net/wire"
)

// roundTrip encodes m and parses it back.
func roundTrip(t *testing.T, m wire.Message) wire.Message {
	t.Helper()
	b, err := m.Append(nil)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := wire.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCombatValuesCrossTheWire(t *testing.T) {
	s := Shot{ID: 7, Shooter: 3, Origin: mgl64.Vec3{10.0004, 2, -5}, Direction: mgl64.Vec3{0.6, 0.1, -0.8}.Normalize(), Time: 12.3456789}
	q, err := QuantizeShot(s)
	if err != nil {
		t.Fatal(err)
	}
	if q.Origin.Sub(s.Origin).Len() > 1e-3 || q.Direction.Sub(s.Direction).Len() > 1e-4 || math.Abs(q.Time-s.Time) > 1e-6 {
		t.Errorf("quantized %+v from %+v", q, s)
	}
	if again, _ := QuantizeShot(q); again != q {
		t.Errorf("quantizing twice moved the shot: %+v, %+v", again, q)
	}
	c := Claim{Shooter: 3, Shot: 7, Target: 9, Time: 13, Impact: 12.99, Local: mgl64.Vec3{1, 1.2, -1.8}, Fired: q,
		Applied: [ClaimApplied]Applied{{Update: 12.5, At: 12.8}, {Update: 12.1, At: 12.4}}}
	m, err := ClaimMessage(c)
	if err != nil {
		t.Fatal(err)
	}
	got := ClaimOf(roundTrip(t, m).(*wire.HitClaim))
	if got.Target != 9 || math.Abs(got.Impact-c.Impact) > 1e-6 || got.Local.Sub(c.Local).Len() > 1e-3 ||
		got.Applied[0].Update != 12.5 || math.Abs(got.Applied[1].At-12.4) > 1e-6 || got.Applied[2] != (Applied{}) ||
		got.Fired.Origin != q.Origin || got.Fired.Direction.Sub(q.Direction).Len() > 1e-9 {
		t.Errorf("claim %+v came back as %+v", c, got)
	}
	for _, ev := range []Event{
		{Kind: EventFire, Time: q.Time, Shot: q},
		{Kind: EventHit, Time: 14, Shot: q, Target: 9, Damage: 40, Health: 60, Local: mgl64.Vec3{1, 1, 1},
			Rebuilt: HullPose{Actor: 9, Position: mgl64.Vec3{5, 1, 5}, Orientation: mgl64.QuatIdent()}},
		{Kind: EventRefused, Time: 14, Shot: q, Target: 9, Reason: RejectTerrain, Rebuilt: HullPose{Orientation: mgl64.QuatIdent()}},
		{Kind: EventDestroy, Time: 14, Shot: q, Target: 9},
		{Kind: EventScores, Time: 14, Over: true, Until: 24, Ends: math.Inf(1), Scores: []Score{{Owner: 1, Name: "Ada", Team: 2, Kills: 3, Deaths: 1}}},
	} {
		m, err := EventMessage(&ev)
		if err != nil {
			t.Fatalf("%v: %v", ev.Kind, err)
		}
		got, ok := EventOf(roundTrip(t, m))
		if !ok || got.Kind != ev.Kind || got.Target != ev.Target || got.Shot.ID != ev.Shot.ID || got.Shot.Shooter != ev.Shot.Shooter ||
			got.Reason != ev.Reason || got.Health != ev.Health || got.Over != ev.Over || len(got.Scores) != len(ev.Scores) ||
			math.IsInf(got.Ends, 1) != math.IsInf(ev.Ends, 1) {
			t.Errorf("%v: %+v came back as %+v", ev.Kind, ev, got)
		}
	}
	// Every link survives the trip; a round trip to the ms, at least 1 ms, capped.
	links := []Score{
		{Name: "a", Link: LinkMeasured, RTT: 87400 * time.Microsecond},
		{Name: "b", Link: LinkMeasured, RTT: 100 * time.Microsecond},
		{Name: "c", Link: LinkMeasured, RTT: time.Hour},
		{Name: "d", Link: LinkHost}, {Name: "e", Link: LinkBot}, {Name: "f"},
	}
	sm, err := EventMessage(&Event{Kind: EventScores, Scores: links})
	if err != nil {
		t.Fatal(err)
	}
	back, _ := EventOf(roundTrip(t, sm))
	want := []time.Duration{87 * time.Millisecond, time.Millisecond, wire.PingMax * time.Millisecond, 0, 0, 0}
	for i, s := range back.Scores {
		if s.Link != links[i].Link || s.RTT != want[i] {
			t.Errorf("%s: link %v rtt %v came back as %v %v, want rtt %v", s.Name, links[i].Link, links[i].RTT, s.Link, s.RTT, want[i])
		}
	}
	if _, err := FireMessage(Shot{ID: 70000, Shooter: 1, Direction: mgl64.Vec3{1, 0, 0}}); err == nil {
		t.Error("a 17-bit shot number was accepted")
	}
}
