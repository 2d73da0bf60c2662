package referee

import (
	"math"
	"slices"
	"testing"

	"github.com/treadline/treadline/tank"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/terrain"
)

// fight is a two-tank scene for the hit checker: a shooter and a target on the valley
// floor, the target's updates relayed by the host and reckoned by the shooter the way
// a match does.
type fight struct {
	m       *terrain.Map
	reckon  deadreckon.Config
	check   *Checker
	link    ShooterLink
	shooter deadreckon.State
	target  deadreckon.State
	updates []relayed // the target's, as the host relayed them
}

func newFight(t testing.TB) *fight {
	t.Helper()
	return newStoppingFight(t, math.Inf(1))
}

// newStoppingFight is newFight with a target that stops dead at host time stop.
func newStoppingFight(t testing.TB, stop float64) *fight {
	t.Helper()
	m := testmaps.Valley(t)
	floor, _ := m.Landmark("floor")
	place := func(x, z float64) deadreckon.State {
		h, _ := m.HeightAt(x, z)
		s := deadreckon.NewState(mgl64.Vec3{x, h, z})
		return s
	}
	f := &fight{m: m, reckon: game.DeadReckoning().Reckon, link: ShooterLink{Latency: 0.1}}
	f.check = NewChecker(m, CheckerConfig{Reckon: f.reckon})
	f.shooter = place(floor.X, floor.Z)
	f.target = place(floor.X+60, floor.Z+10)
	f.target.Velocity = mgl64.Vec3{0, 0, 4} // driving across the line of fire
	f.check.Spawned(1, 1, f.shooter, 0)
	f.check.Spawned(2, 2, f.target, 0)
	f.updates = append(f.updates, relayed{s: f.target, at: 0, brk: true})
	// The target publishes its motion every half second; the shooter's own updates
	// say it stands still.
	for k := 1; k <= 20; k++ {
		at := 0.5 * float64(k)
		s := f.target
		s.Time = at
		s.Position = s.Position.Add(s.Velocity.Mul(math.Min(at, stop)))
		if at >= stop {
			s.Velocity = mgl64.Vec3{}
		}
		f.check.Relayed(2, s, at+0.02)
		f.updates = append(f.updates, relayed{s: s, at: at + 0.02})
		a := f.shooter
		a.Time = at
		f.check.Relayed(1, a, at+0.02)
	}
	return f
}

// shownAt returns the target's hull as the shooter shows it at host time tm, frames
// of 1/60 s, and the updates it had applied, newest first.
func (f *fight) shownAt(tm float64) (combat.HullPose, [combat.ClaimApplied]combat.Applied) {
	a := deadreckon.NewActor(f.reckon)
	a.SetClampPhase(2)
	a.SetClockOffset(0)
	var applied [combat.ClaimApplied]combat.Applied
	next := 0
	for frame := 0.0; frame <= tm+1e-9; frame += 1.0 / 60 {
		for next < len(f.updates) && f.updates[next].at+f.link.Latency < frame {
			u := f.updates[next]
			if u.brk {
				_ = a.Break(u.s, frame)
			} else {
				_ = a.Receive(u.s, frame)
			}
			copy(applied[1:], applied[:])
			applied[0] = combat.Applied{Update: u.s.Time, At: frame}
			next++
		}
		a.Advance(frame)
		a.ClampTo(f.m, f.shooter.Position)
	}
	r := a.Reckoned()
	return combat.HullPose{Actor: 2, Position: r.Position, Orientation: r.Orientation}, applied
}

// shoot fires shot id at time fired from the shooter at the hull's middle as shown at
// the expected impact, and returns the shot and the honest claim of its hit.
func (f *fight) shoot(t testing.TB, id uint32, fired float64) (combat.Shot, combat.Claim) {
	t.Helper()
	origin := f.shooter.Position.Add(mgl64.Vec3{4.9, 1.9, 0})
	aimAt, _ := f.shownAt(fired + 0.3)
	dir := aimAt.Position.Add(mgl64.Vec3{0, 1.2, 0}).Sub(origin)
	el, _ := combat.BallisticElevation(math.Hypot(dir[0], dir[2]), dir[1])
	yaw := math.Atan2(dir[2], dir[0])
	s := combat.Shot{ID: id, Shooter: 1, Origin: origin, Time: fired,
		Direction: mgl64.Vec3{math.Cos(el) * math.Cos(yaw), math.Sin(el), math.Cos(el) * math.Sin(yaw)}}
	for frame := fired + 1.0/60; frame < fired+2; frame += 1.0 / 60 {
		hp, applied := f.shownAt(frame)
		if imp := combat.Sweep(f.m, s, frame-1.0/60, frame, []combat.HullPose{hp}); imp.Kind == combat.ImpactTank {
			return s, combat.Claim{Shooter: 1, Shot: id, Target: 2, Time: frame, Impact: imp.Time, Local: imp.Local,
				Applied: applied, Fired: s, Observer: f.shooter.Position, Reckon: combat.ModeOf(f.reckon)}
		} else if imp.Kind != combat.ImpactNone {
			t.Fatalf("test shot %d struck %+v", id, imp)
		}
	}
	t.Fatalf("test shot %d never arrived", id)
	return s, combat.Claim{}
}

func TestHitCheckerAcceptsWhatTheShooterSawAndRefusesEachReason(t *testing.T) {
	type scene struct {
		f     *fight
		shot  combat.Shot
		claim combat.Claim
		at    float64 // claim arrival
	}
	setup := func(t *testing.T) *scene {
		f := newFight(t)
		s, c := f.shoot(t, 1, 5)
		if r := f.check.Fired(s, s.Time+0.1); r != combat.Accepted {
			t.Fatalf("fire refused: %v", r)
		}
		return &scene{f: f, shot: s, claim: c, at: c.Time + 0.1}
	}
	for _, c := range []struct {
		name   string
		change func(s *scene)
		want   combat.Reason
	}{
		{"honest hit", func(s *scene) {}, combat.Accepted},
		{"unknown shot", func(s *scene) { s.claim.Shot, s.claim.Fired = 99, combat.Shot{} }, combat.RejectUnknownShot},
		{"shooter destroyed before firing", func(s *scene) {
			s.f.check.Destroyed(1, 4)
			s.claim.Shot, s.claim.Fired.ID = 2, 2
			s.f.check.Fired(s.claim.Fired, s.at)
		}, combat.RejectShooterDead},
		{"shooter respawned before firing", func(s *scene) {
			s.f.check.Despawned(1, 4.5)
			s.claim.Shot, s.claim.Fired.ID = 2, 2
			s.f.check.Fired(s.claim.Fired, s.at)
		}, combat.RejectShooterDead},
		{"reload too fast", func(s *scene) {
			second := s.shot
			second.ID, second.Time = 2, s.shot.Time+1
			s.f.check.Fired(second, second.Time+0.1)
			s.claim.Shot, s.claim.Fired = 2, second
		}, combat.RejectReload},
		{"impact before firing", func(s *scene) { s.claim.Impact = s.shot.Time - 0.1 }, combat.RejectImpossible},
		{"impact after the claim's frame", func(s *scene) { s.claim.Impact = s.claim.Time + 0.05 }, combat.RejectImpossible},
		{"claim from the future", func(s *scene) { s.at = s.claim.Time - 0.2 }, combat.RejectImpossible},
		{"shot from far off the shooter", func(s *scene) {
			far := s.shot
			far.ID, far.Origin = 2, far.Origin.Add(mgl64.Vec3{0, 0, 30})
			s.f.check.actors[1].gun.shot = false // not a reload matter
			s.claim.Shot, s.claim.Fired = 2, far
			s.f.check.Fired(far, s.at)
		}, combat.RejectImpossible},
		{"rewind beyond the cap", func(s *scene) { s.at = s.claim.Time + DefaultMaxRewind + 0.05 }, combat.RejectRewind},
		{"path through the terrain", func(s *scene) {
			under := s.shot
			under.ID, under.Origin = 2, under.Origin.Sub(mgl64.Vec3{0, 2.5, 0})
			s.f.check.actors[1].gun.shot = false // not a reload matter
			s.claim.Shot, s.claim.Fired = 2, under
			s.f.check.Fired(under, s.at)
		}, combat.RejectTerrain},
		{"target already destroyed", func(s *scene) { s.f.check.Destroyed(2, s.claim.Time+0.05) }, combat.RejectTargetDestroyed},
		{"target gone", func(s *scene) { s.f.check.Despawned(2, s.claim.Time+0.05) }, combat.RejectTargetDestroyed},
		{"target broke continuity unseen", func(s *scene) {
			st := s.f.target
			st.Time = s.claim.Time
			s.f.check.Spawned(2, 2, st, s.claim.Time+0.02)
		}, combat.RejectTargetBreak},
		{"point on the hull, shell elsewhere", func(s *scene) {
			s.claim.Local = mgl64.Vec3{tank.Default().HullMax()[0], 1, 0} // the front face; the shell struck the rear
		}, combat.RejectOffHull},
		{"point off the hull", func(s *scene) { s.claim.Local[2] += 3 }, combat.RejectOffHull},
		{"shell a hand's breadth beside the hull", func(s *scene) {
			s.claim.Impact -= 0.1 / combat.MuzzleVelocity // the shell 10 cm short of the face
			s.claim.Local = s.claim.Local.Sub(mgl64.Vec3{0.1, 0, 0})
		}, combat.RejectOffHull},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := setup(t)
			c.change(s)
			v := s.f.check.Check(s.claim, s.at, s.f.link)
			if v.Reason != c.want {
				t.Fatalf("verdict %v (miss %.3f m), want %v", v.Reason, v.Miss, c.want)
			}
			if n := s.f.check.Counts()[c.want]; n != 1 {
				t.Errorf("count of %v = %d, want 1", c.want, n)
			}
			if c.want == combat.Accepted && v.Miss > 0.01 {
				t.Errorf("rebuilt hull %.3f m off the shooter's", v.Miss)
			}
			// A repeat of the claim is a duplicate, not counted again.
			if again := s.f.check.Check(s.claim, s.at+0.01, s.f.link); !again.Duplicate && c.want != combat.RejectUnknownShot {
				t.Errorf("repeated claim: %+v, want a duplicate", again)
			}
			if n := s.f.check.Counts()[c.want]; n != 1 && c.want != combat.RejectUnknownShot {
				t.Errorf("after a repeat, count of %v = %d, want 1", c.want, n)
			}
		})
	}
}

func TestClaimOvertakingItsFireEventIsHeldForIt(t *testing.T) {
	f, r := refereeFight(t, combat.Rules{})
	s, c := f.shoot(t, 1, 5)
	r.events(nil) // the scoreboard of the spawns
	if v := r.claim(c, c.Time+0.1, f.link); v.Reason == combat.Accepted || len(r.events(nil)) != 0 {
		t.Fatalf("a claim before its fire event was judged at once: %v", v.Reason)
	}
	r.fire(s, c.Time+0.2)
	var hit bool
	for _, e := range r.events(nil) {
		hit = hit || e.Kind == combat.EventHit
	}
	if !hit {
		t.Error("the held claim was not judged when its fire event came")
	}
}

// TestClaimWithoutFireRefused: a claim carries its shot, but the host takes it only
// from a Fire it saw and relayed: a shell nobody was shown is refused.
func TestClaimWithoutFireRefused(t *testing.T) {
	f, r := refereeFight(t, combat.Rules{})
	_, c := f.shoot(t, 1, 5)
	for _, at := range []float64{c.Time + 0.1, c.Time + 0.12, c.Time + 0.14} { // the claim and its copies
		r.claim(c, at, f.link)
	}
	r.Tick(c.Time + 1)
	if h, _ := r.health(2); h != r.Rules().MaxHealth {
		t.Errorf("a claim without a Fire did %v damage", r.Rules().MaxHealth-h)
	}
	for _, e := range r.events(nil) {
		if e.Kind == combat.EventHit || e.Kind == combat.EventFire {
			t.Errorf("event %v for a shot never announced", e.Kind)
		}
	}
	if v := f.check.Check(c, c.Time+0.1, f.link); v.Reason != combat.RejectUnknownShot {
		t.Errorf("checker verdict %v, want %v", v.Reason, combat.RejectUnknownShot)
	}
}

// BenchmarkHitCheck measures the host's judgement of one claim: the terrain sweep of
// the shell's path and the rebuild of the shooter's view.
func BenchmarkHitCheck(b *testing.B) {
	f := newFight(b)
	s, c := f.shoot(b, 1, 5)
	f.check.Fired(s, s.Time+0.1)
	b.ReportAllocs()
	for b.Loop() {
		if v := f.check.check(c, c.Time+0.1, f.link); v.Reason != combat.Accepted {
			b.Fatal(v.Reason)
		}
	}
}

func TestHitCheckerRebuildsWithTheShootersReckoning(t *testing.T) {
	for _, alg := range []deadreckon.Algorithm{deadreckon.Linear, deadreckon.CubicBezier, deadreckon.Static} {
		f := newFight(t)
		f.reckon.Algorithm = alg // the shooter switched algorithm; the host's default stays
		s, c := f.shoot(t, 1, 5)
		f.check.Fired(s, s.Time+0.1)
		if v := f.check.Check(c, c.Time+0.1, f.link); v.Reason != combat.Accepted || v.Miss > 0.01 {
			t.Errorf("%v: %v, rebuilt %.3f m off", alg, v.Reason, v.Miss)
		}
	}
}

// TestForgetDropsWhatIsDue: Forget drops the records of the actors gone and the shots
// whose shells expired before the time it is given, and keeps every other, however
// the departures and shots interleave with its calls.
func TestForgetDropsWhatIsDue(t *testing.T) {
	f := newFight(t)
	h := f.check
	for id := uint32(3); id <= 5; id++ {
		h.Spawned(id, id, f.target, 0)
	}
	h.Despawned(3, 2)
	h.Despawned(4, 6)
	h.Fired(combat.Shot{ID: 1, Shooter: 1, Origin: f.shooter.Position, Direction: mgl64.Vec3{1, 0, 0}, Time: 1}, 1)
	h.Fired(combat.Shot{ID: 2, Shooter: 1, Origin: f.shooter.Position, Direction: mgl64.Vec3{1, 0, 0}, Time: 4}, 4)
	for _, c := range []struct {
		before       float64
		despawn      uint32 // actor 5 leaves at before-1 first, if set
		actors, shot []uint32
	}{
		{before: 1, actors: []uint32{1, 2, 3, 4, 5}, shot: []uint32{1, 2}},
		{before: 2.5, actors: []uint32{1, 2, 4, 5}, shot: []uint32{1, 2}},
		{before: 6.5, actors: []uint32{1, 2, 5}, shot: []uint32{2}},
		{before: 7, despawn: 5, actors: []uint32{1, 2}, shot: []uint32{2}},
		{before: 9.5, actors: []uint32{1, 2}, shot: nil},
	} {
		if c.despawn != 0 {
			h.Despawned(c.despawn, c.before-1)
		}
		h.Forget(c.before)
		var actors, shots []uint32
		for id := range h.actors {
			actors = append(actors, id)
		}
		for k := range h.shots {
			shots = append(shots, k.id)
		}
		slices.Sort(actors)
		slices.Sort(shots)
		if !slices.Equal(actors, c.actors) || !slices.Equal(shots, c.shot) {
			t.Errorf("Forget(%g): actors %v, shots %v; want %v, %v", c.before, actors, shots, c.actors, c.shot)
		}
	}
}
