package referee

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/terrain"
)

// hostFight is a referee on the real host in process (gametest's rig), on the fight's
// map, with a shooter and a bystander joined, each with one tank where the fight puts
// its shooter and its target.
type hostFight struct {
	f                   *fight
	ref                 *Referee
	rig                 *gametest.Rig
	shooter, bystander  *gametest.Link
	shooterID, targetID uint32
}

func newHostFight(t *testing.T, rules combat.Rules) *hostFight {
	t.Helper()
	f := newFight(t)
	ref, err := New(f.m, rules, f.reckon)
	if err != nil {
		t.Fatal(err)
	}
	rig, err := gametest.New(gametest.Config{Judge: ref, Extent: extentOf(f.m)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rig.Close() })
	h := &hostFight{f: f, ref: ref, rig: rig}
	if h.shooter, err = rig.Join(); err != nil {
		t.Fatal(err)
	}
	if h.bystander, err = rig.Join(); err != nil {
		t.Fatal(err)
	}
	rig.SetNow(1)
	if h.shooterID, err = h.shooter.Spawn("shooter", 1, stateAt(f.shooter, 1)); err != nil {
		t.Fatal(err)
	}
	if h.targetID, err = h.bystander.Spawn("target", 2, stateAt(f.target, 1)); err != nil {
		t.Fatal(err)
	}
	return h
}

// extentOf is the half-width of the square around the origin that holds m, m.
func extentOf(m *terrain.Map) float64 {
	lo, hi := m.Min(), m.Max()
	return math.Max(math.Max(-lo[0], -lo[1]), math.Max(hi[0], hi[1]))
}

// stateAt is s at host time at, standing still.
func stateAt(s deadreckon.State, at float64) deadreckon.State {
	s.Time, s.Velocity = at, mgl64.Vec3{}
	s.NumArticulations = 2
	return s
}

// verdicts returns the verdicts (HitResult messages) that reached l since the last
// poll.
func verdicts(l *gametest.Link) []*wire.HitResult {
	var out []*wire.HitResult
	for _, ev := range l.Poll(nil) {
		if hr, ok := ev.Message.(*wire.HitResult); ok {
			out = append(out, hr)
		}
	}
	return out
}

// TestRefusalGoesToTheShooterOnly: a refused claim's verdict reaches its shooter and
// nobody else, so a flood of forged claims is not relayed to every player (about 20
// a second reached everyone).
func TestRefusalGoesToTheShooterOnly(t *testing.T) {
	h := newHostFight(t, combat.Rules{Reload: 0.5})
	f := h.f
	h.rig.SetNow(2)
	verdicts(h.shooter)
	verdicts(h.bystander)
	// Forged claims: shells fired the other way, claimed as hits on the target.
	const forged = 3
	for i := range forged {
		at := 2 + float64(i)
		h.rig.SetNow(at)
		s := combat.Shot{ID: uint32(i + 1), Shooter: h.shooterID, Time: at,
			Origin: f.shooter.Position.Add(mgl64.Vec3{-4.9, 1.9, 0}), Direction: mgl64.Vec3{-1, 0.05, 0}.Normalize()}
		fire, err := combat.FireMessage(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.shooter.Send(fire); err != nil {
			t.Fatal(err)
		}
		c := combat.Claim{Shooter: h.shooterID, Shot: s.ID, Target: h.targetID, Time: at + 0.3, Impact: at + 0.25,
			Local: mgl64.Vec3{0, 1, 0}, Fired: s, Observer: f.shooter.Position, Reckon: combat.ModeOf(f.reckon)}
		c.Applied[0] = combat.Applied{Update: 1, At: 1.1}
		claim, err := combat.ClaimMessage(c)
		if err != nil {
			t.Fatal(err)
		}
		h.rig.SetNow(at + 0.3)
		if err := h.shooter.Send(claim); err != nil {
			t.Fatal(err)
		}
	}
	h.rig.SetNow(6)
	mine, theirs := verdicts(h.shooter), verdicts(h.bystander)
	if len(mine) != forged {
		t.Errorf("the shooter heard %d verdicts on its %d forged claims, want each", len(mine), forged)
	}
	for _, hr := range mine {
		if hr.Verdict == uint8(combat.Accepted) {
			t.Errorf("a forged claim accepted: %+v", hr)
		}
	}
	if len(theirs) != 0 {
		t.Errorf("a bystander heard %d verdicts on another player's refused claims, want none: %+v", len(theirs), theirs[0])
	}
	if n := h.ref.Counts().Verdicts[combat.Accepted]; n != 0 {
		t.Errorf("%d claims accepted", n)
	}
}
