package game

import (
	"math"
	"slices"
	"testing"

	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/physics"
)

// TestPatrolsShare: Config.Patrol spreads the patrolling bots evenly.
func TestPatrolsShare(t *testing.T) {
	for _, c := range []struct {
		share float64
		bots  int
		want  int
	}{{0, 8, 0}, {-1, 8, 0}, {0.5, 8, 4}, {0.25, 8, 2}, {1, 8, 8}, {2, 3, 3}, {0.34, 3, 1}} {
		n := 0
		for i := range c.bots {
			if patrols(c.share, i) {
				n++
			}
		}
		if n != c.want {
			t.Errorf("share %v of %d bots: %d patrol, want %d", c.share, c.bots, n, c.want)
		}
	}
}

// TestBotsKeepToRoutes: patrolling bots drive their routes round, and keep to them
// (within RouteTolerance and RouteHeadingTolerance, no tank in sight) most of the
// time they drive.
func TestBotsKeepToRoutes(t *testing.T) {
	t.Parallel()
	mp := testmaps.Valley(t)
	rig := newRig(t, gametest.Config{})
	const bots = 6
	m := mustMatch(t, Config{Map: mp, NoPlayer: true, Bots: bots, Seed: 7, Patrol: 1}, join(t, rig))
	type track struct {
		frames, on int
		s0, run    float64
		offs, yaws []float64
	}
	tracks := make(map[*tank]*track)
	const secs = 60.0
	for k := 0; k <= int(secs/tick); k++ {
		now := float64(k) * tick
		rig.SetNow(now)
		mustStep(t, m, now, physics.Input{})
		for _, tk := range m.tanks {
			if !tk.local || tk.bot == nil || tk.bot.Route() == nil {
				continue
			}
			tr := tracks[tk]
			p := tk.body.Pose()
			r := tk.bot.Route()
			s, off := r.Nearest(p.Position, 0, 0)
			rs := tk.bot.RouteState()
			_, dir := r.At(s)
			yawErr := math.Abs(geom.WrapAngle(geom.Yaw(p.Orientation) - geom.Heading(dir)))
			on := rs.Following && off <= RouteTolerance && yawErr <= RouteHeadingTolerance
			if tr == nil {
				tr = &track{s0: s}
				tracks[tk] = tr
			}
			tr.run += r.Diff(tr.s0, s)
			tr.s0 = s
			if tk.bot.RouteState().Following {
				tr.frames++
				tr.offs = append(tr.offs, off)
				tr.yaws = append(tr.yaws, yawErr*180/math.Pi)
				if on {
					tr.on++
				}
			}
		}
	}
	if len(tracks) < bots/2 {
		t.Fatalf("%d bots patrol, want at least %d (the others found no drivable loop)", len(tracks), bots/2)
	}
	for tk, tr := range tracks {
		share := float64(tr.on) / math.Max(1, float64(tr.frames))
		t.Logf("%s: %.0f m along a %.0f m route, on it %.0f%% of %d free frames, off p50 %.2f m p95 %.2f m, heading p50 %.1f° p95 %.1f°",
			tk.name, tr.run, tk.bot.Route().Length(), 100*share, tr.frames, percentile(tr.offs, 0.5), percentile(tr.offs, 0.95),
			percentile(tr.yaws, 0.5), percentile(tr.yaws, 0.95))
		if tr.run < 150 {
			t.Errorf("%s drove only %.0f m along its route", tk.name, tr.run)
		}
		if share < 0.7 {
			t.Errorf("%s kept to its route %.0f%% of the time, want ≥ 70%%", tk.name, 100*share)
		}
	}
}

// percentile returns the q-quantile of xs (sorted in place), or NaN when empty.
func percentile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	slices.Sort(xs)
	return xs[min(len(xs)-1, int(q*float64(len(xs))))]
}
