package referee

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/net"
)

// FuzzJudge hands the host's judge arbitrary shots and claims, as decoded from the
// wire or not: nothing may panic, every verdict is a known reason, and what the judge
// sends back encodes.
func FuzzJudge(f *testing.F) {
	fg := newFight(f)
	s, c := fg.shoot(f, 1, 5)
	f.Add(s.Origin[0], s.Origin[1], s.Direction[0], s.Direction[1], s.Time, c.Time, c.Impact, c.Local[0], c.Local[1], uint8(0x28), c.Applied[0].Update)
	f.Add(math.NaN(), math.Inf(1), 0.0, 0.0, -1.0, 1e300, -1e300, 40.0, 0.0, uint8(0xff), math.NaN())
	f.Fuzz(func(t *testing.T, ox, oy, dx, dy, fired, at, impact, lx, ly float64, mode uint8, applied float64) {
		// at is the host's own clock, not the sender's to choose; everything else is.
		if !(at >= 0 && at < 1e6) {
			at = 10
		}
		j, err := New(fg.m, combat.Rules{}, fg.reckon)
		if err != nil {
			t.Fatal(err)
		}
		j.Spawned(1, 1, "a", 1, fg.shooter, 0)
		j.Spawned(2, 2, "b", 2, fg.target, 0)
		for _, u := range fg.updates[1:] {
			j.Relayed(2, u.s, u.at)
		}
		shot := combat.Shot{ID: 1, Shooter: 1, Origin: mgl64.Vec3{ox, oy, 0}, Direction: mgl64.Vec3{dx, dy, 0}, Time: fired}
		claim := combat.Claim{Shooter: 1, Shot: 1, Target: 2, Time: at, Impact: impact, Local: mgl64.Vec3{lx, ly, 0},
			Reckon: combat.ReckonModeOf(mode & 63), Fired: shot, Applied: [combat.ClaimApplied]combat.Applied{{Update: applied, At: at}}}
		if m, err := combat.FireMessage(shot); err == nil {
			j.Message(1, m, at, netLink())
		}
		j.fire(shot, at)
		v := j.claim(claim, at, ShooterLink{Latency: 0.1})
		if v.Reason >= combat.NumReasons {
			t.Fatalf("verdict %v", v.Reason)
		}
		if m, err := combat.ClaimMessage(claim); err == nil {
			j.Message(1, m, at, netLink())
		}
		j.Tick(at)
		for _, jm := range j.Outbox(nil) {
			if _, err := jm.Message.Append(nil); err != nil {
				t.Fatalf("the judge sent a %v that does not encode: %v", jm.Message.Type(), err)
			}
		}
	})
}

func netLink() net.JudgeLink { return net.JudgeLink{Latency: 0.1} }
