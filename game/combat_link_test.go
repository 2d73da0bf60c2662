package game

import (
	"math"
	"testing"
	"time"

	tankspec "github.com/treadline/treadline/tank"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/bot"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/referee"
	"github.com/treadline/treadline/terrain"
)

// recordLink is a shooter's link that records its shots, its claims and the host's
// answers to them.
type recordLink struct {
	*gametest.Link
	match   *Match
	local   map[uint32]bool          // claims on the shooter's own peer's tanks, by shot id
	fired   map[uint32]combat.Shot   // by shot id
	claimed map[uint32]combat.Claim  // honest claims, by shot id
	answer  map[uint32]combat.Reason // the host's verdicts on this link's claims, by shot id
	forged  map[uint32]float64       // forged claims, by shot id: the miss on the shooter's screen, m
}

func (r *recordLink) Send(m wire.Message) error {
	switch x := m.(type) {
	case *wire.Fire:
		s := combat.ShotOf(x)
		r.fired[s.ID] = s
	case *wire.HitClaim:
		c := combat.ClaimOf(x)
		if _, again := r.claimed[c.Shot]; !again {
			r.claimed[c.Shot] = c
			if t := r.match.byID[c.Target]; t != nil {
				r.local[c.Shot] = t.local
			}
		}
	}
	return r.Link.Send(m)
}

func (r *recordLink) Poll(buf []net.Event) []net.Event {
	n := len(buf)
	buf = r.Link.Poll(buf)
	for _, ev := range buf[n:] {
		x, ok := ev.Message.(*wire.HitResult)
		if !ok {
			continue
		}
		if s, mine := r.fired[uint32(x.Shot)]; mine && s.Shooter == uint32(x.Shooter) {
			r.answer[uint32(x.Shot)] = combat.Reason(x.Verdict)
		}
	}
	return buf
}

// approach is a shot's closest pass by an enemy hull on the shooter's screen.
type approach struct {
	ended        bool // the shell struck the ground or a rock
	dist         float64
	time, impact float64
	target       uint32
	local        mgl64.Vec3
	applied      [combat.ClaimApplied]combat.Applied
}

// TestTwoClientsOverAnImpairedLoopback: a shooter and a target on two clients of a
// refereed loopback at 150 ms ± 30 ms and 5 % loss each way. The hits the shooter saw
// are confirmed (unless the target was destroyed first; at most one in twenty may miss
// the rebuilt hull, which the lab measures at 0.5 %), and every miss by 10 cm or more,
// claimed as a hit at the hull point the shell passed nearest, is refused.
func TestTwoClientsOverAnImpairedLoopback(t *testing.T) {
	if testing.Short() {
		t.Skip("minutes of simulated battle")
	}
	t.Parallel()
	mp, err := terrain.Generate(terrain.GenerateConfig{Seed: 7, Size: 256, Samples: 129}) // a small valley: they meet
	if err != nil {
		t.Fatal(err)
	}
	ref, err := referee.New(mp, combat.Rules{}, DeadReckoning().Reckon)
	if err != nil {
		t.Fatal(err)
	}
	rig := newRig(t, gametest.Config{Seed: 5, Judge: ref,
		Link: impair.Link{Latency: 150 * time.Millisecond, Jitter: 30 * time.Millisecond, Loss: 0.05}})
	rec := &recordLink{Link: join(t, rig), fired: map[uint32]combat.Shot{}, claimed: map[uint32]combat.Claim{},
		answer: map[uint32]combat.Reason{}, forged: map[uint32]float64{}, local: map[uint32]bool{}}
	shooter := mustMatch(t, Config{Map: mp, NoPlayer: true, Bots: 3, Seed: 21, Difficulty: bot.Easy}, rec) // teams 1, 2, 1; easy: hits and misses
	rec.match = shooter
	target := mustMatch(t, Config{Map: mp, NoPlayer: true, Bots: 2, Seed: 22}, join(t, rig)) // teams 1, 2
	var snap Snapshot
	closest := map[uint32]*approach{}
	const dt = 1.0 / 60
	for tick := 1; tick <= 60*600; tick++ {
		now := float64(tick) * dt
		rig.SetNow(now)
		mustStep(t, shooter, now, physics.Input{})
		mustStep(t, target, now, physics.Input{})
		shooter.Snapshot(&snap)
		for id, s := range rec.fired {
			if _, ok := rec.claimed[id]; ok {
				continue
			}
			if _, ok := rec.forged[id]; ok {
				continue
			}
			a := closest[id]
			if a == nil {
				a = &approach{dist: math.Inf(1)}
				closest[id] = a
			}
			if now-s.Time > combat.ShellLifetime {
				rec.forged[id] = math.NaN() // never came within reach of a forgery
				continue
			}
			team := -1
			for _, tv := range snap.Tanks {
				if tv.ID == s.Shooter {
					team = tv.Team
				}
			}
			// The stretch of flight this frame, up to where the shell struck the ground.
			end := now
			if a.ended {
				end = now - dt
			} else if imp := combat.Sweep(mp, s, now-dt, now, nil); imp.Kind != combat.ImpactNone {
				end, a.ended = imp.Time, true
			}
			frame := math.Inf(1)
			for _, tv := range snap.Tanks {
				if tv.Local || team < 0 || !combat.Enemies(team, tv.Team) || tv.Wreck {
					continue // forge against remote enemies only
				}
				inv := tv.Orientation.Conjugate()
				for k := 1; k <= 8; k++ {
					ts := now - dt + (end-now+dt)*float64(k)/8
					if ts < s.Time || ts > end {
						continue
					}
					l := inv.Rotate(s.At(ts).Sub(tv.Position))
					var on mgl64.Vec3
					for i := range 3 {
						on[i] = math.Max(tankspec.Default().HullMin()[i], math.Min(tankspec.Default().HullMax()[i], l[i]))
					}
					d := l.Sub(on).Len()
					frame = math.Min(frame, d)
					if d < a.dist {
						*a = approach{ended: a.ended, dist: d, time: now, impact: ts, target: tv.ID, local: on}
						if tc := shooter.combat.tanks[tv.ID]; tc != nil {
							a.applied = tc.applied // what the shooter had of the target then
						}
					}
				}
			}
			// A fifth of a second past its closest pass (or its end), unclaimed: a miss
			// on the shooter's screen. Claim it as a hit where it passed nearest, as a
			// cheat would, within the rewind cap.
			if frame > a.dist && now-a.time >= 0.2 && a.dist >= 0.1 && a.dist < 30 {
				c := combat.Claim{Shooter: s.Shooter, Shot: id, Target: a.target, Time: a.time, Impact: a.impact,
					Local: a.local, Fired: s, Applied: a.applied, Reckon: combat.ModeOf(shooter.dr.Reckon)}
				if msg, err := combat.ClaimMessage(c); err == nil && rec.Link.Send(msg) == nil {
					rec.forged[id] = a.dist
				}
			}
		}
	}
	confirmed, honest, forged, refusedForged, offHull := 0, 0, 0, 0, 0
	for id := range rec.claimed {
		v, ok := rec.answer[id]
		if !ok {
			continue // the answer is still on its way
		}
		honest++
		switch v {
		case combat.Accepted:
			confirmed++
		case combat.RejectTargetDestroyed, combat.RejectTargetBreak, combat.RejectShooterDead:
			// another shell got there first (or got the shooter before it fired, the
			// news still on its way); nothing to do with the view
		case combat.RejectOffHull:
			offHull++ // a rebuild that missed; the lab measures how often (0.5 % at 150 ms)
		default:
			t.Errorf("shot %d, a hit on the shooter's screen (on its own peer's tank: %v), refused: %v", id, rec.local[id], v)
		}
	}
	for id, miss := range rec.forged {
		if math.IsNaN(miss) {
			continue
		}
		v, ok := rec.answer[id]
		if !ok {
			continue
		}
		forged++
		if v == combat.Accepted {
			t.Errorf("shot %d missed by %.2f m on the shooter's screen, and the host confirmed it", id, miss)
		} else {
			refusedForged++
		}
	}
	t.Logf("%d shots: %d hits on the shooter's screen, %d confirmed; %d misses claimed, %d refused; verdicts %v",
		len(rec.fired), honest, confirmed, forged, refusedForged, ref.Counts().Verdicts)
	if offHull*20 > honest {
		t.Errorf("%d of %d hits on the shooter's screen refused as off the rebuilt hull", offHull, honest)
	}
	if confirmed < 10 || forged < 3 {
		t.Errorf("too few to judge: %d confirmed hits, %d forged claims", confirmed, forged)
	}
}
