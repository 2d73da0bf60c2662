package game

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/internal/testmaps"
)

// TestAimCandidatesSameAim: the crosshair's path swept against the hulls
// aimCandidates keeps strikes what it strikes swept against every hull, at the same
// point, over 300 random crowds and shots; the candidates leave most hulls out.
func TestAimCandidatesSameAim(t *testing.T) {
	mp := testmaps.Valley(t)
	lo, hi := mp.Min(), mp.Max()
	r := rand.New(rand.NewPCG(7, 33))
	height := func(x, z float64) float64 { h, _ := mp.HeightAt(x, z); return h }
	var hulls, cand []combat.HullPose
	kept, all, struck := 0, 0, 0
	for run := range 300 {
		hulls = hulls[:0]
		cx := lo[0] + (hi[0]-lo[0])*(0.3+0.4*r.Float64())
		cz := lo[1] + (hi[1]-lo[1])*(0.3+0.4*r.Float64())
		for i := range 200 {
			x, z := cx+(r.Float64()-0.5)*300, cz+(r.Float64()-0.5)*300
			q := geom.QuatNormalize(mgl64.Quat{W: r.Float64() - 0.5, V: mgl64.Vec3{r.Float64() - 0.5, r.Float64() - 0.5, r.Float64() - 0.5}})
			hulls = append(hulls, combat.HullPose{Actor: uint32(i + 1), Position: mgl64.Vec3{x, height(x, z) + r.Float64(), z}, Orientation: q})
		}
		yaw, pitch := r.Float64()*2*math.Pi, (r.Float64()-0.3)*0.3
		if run == 0 {
			pitch = math.Pi / 2 // straight up: every hull kept
		}
		dir := mgl64.Vec3{math.Cos(pitch) * math.Cos(yaw), math.Sin(pitch), math.Cos(pitch) * math.Sin(yaw)}
		origin := mgl64.Vec3{cx, height(cx, cz) + 2.2, cz}
		shot := combat.Shot{Shooter: 1, Origin: origin, Direction: dir}
		cand = aimCandidates(cand[:0], hulls, origin, dir)
		kept += len(cand)
		all += len(hulls)
		for f := 0.0; f < combat.ShellLifetime; f += aimStep {
			want := combat.Sweep(mp, shot, f, f+aimStep, hulls)
			got := combat.Sweep(mp, shot, f, f+aimStep, cand)
			if got != want {
				t.Fatalf("run %d, %.2f s: %+v with the candidates, %+v with every hull", run, f, got, want)
			}
			if want.Kind != combat.ImpactNone {
				if want.Kind == combat.ImpactTank {
					struck++
				}
				break
			}
		}
	}
	if struck < 20 {
		t.Errorf("%d of 300 paths struck a tank: too few to compare", struck)
	}
	if kept*4 > all {
		t.Errorf("the candidates kept %d of %d hulls", kept, all)
	}
	t.Logf("%d paths struck a tank; %d of %d hulls kept", struck, kept, all)
}

// TestShellsNearSameImpact: a shell's frame swept against the hulls hullsByX finds
// near its segment strikes what it strikes swept against every hull, over 300
// random crowds and shells of frames from 1/60 s to 1 s; most hulls are left out.
func TestShellsNearSameImpact(t *testing.T) {
	mp := testmaps.Valley(t)
	lo, hi := mp.Min(), mp.Max()
	height := func(x, z float64) float64 { h, _ := mp.HeightAt(x, z); return h }
	r := rand.New(rand.NewPCG(8, 34))
	var hulls, by []combat.HullPose
	var idx []int32
	var o hullsByX
	kept, all, struck := 0, 0, 0
	for run := range 300 {
		hulls = hulls[:0]
		cx := lo[0] + (hi[0]-lo[0])*(0.3+0.4*r.Float64())
		cz := lo[1] + (hi[1]-lo[1])*(0.3+0.4*r.Float64())
		for i := range 300 {
			x, z := cx+(r.Float64()-0.5)*200, cz+(r.Float64()-0.5)*200
			q := geom.QuatNormalize(mgl64.Quat{W: r.Float64() - 0.5, V: mgl64.Vec3{r.Float64() - 0.5, r.Float64() - 0.5, r.Float64() - 0.5}})
			p := mgl64.Vec3{x, height(x, z) + r.Float64(), z}
			if run%10 == 0 && i == 7 {
				p[0] = math.NaN() // struck by no shell, near or not
			}
			if run%10 == 0 && i == 8 {
				p[2] = math.Inf(1)
			}
			hulls = append(hulls, combat.HullPose{Actor: uint32(i + 1), Position: p, Orientation: q})
		}
		o.order(hulls)
		yaw, pitch := r.Float64()*2*math.Pi, (r.Float64()-0.3)*0.2
		dir := mgl64.Vec3{math.Cos(pitch) * math.Cos(yaw), math.Sin(pitch), math.Cos(pitch) * math.Sin(yaw)}
		shot := combat.Shot{Shooter: 1, Origin: mgl64.Vec3{cx, height(cx, cz) + 2.2, cz}, Direction: dir, Time: 10}
		frame := 1.0 / 60
		if run%2 == 1 {
			frame = 0.05 + r.Float64()*0.95
		}
		for t0 := shot.Time - frame*r.Float64(); t0 < shot.Time+combat.ShellLifetime+frame; t0 += frame {
			idx, by = o.near(idx[:0], by[:0], hulls, shot, t0, t0+frame)
			want := combat.Sweep(mp, shot, t0, t0+frame, hulls)
			got := combat.Sweep(mp, shot, t0, t0+frame, by)
			kept += len(by)
			all += len(hulls)
			if fmt.Sprint(got) != fmt.Sprint(want) { // NaNs alike
				t.Fatalf("run %d, from %.3f s: %+v with the hulls near, %+v with every hull", run, t0, got, want)
			}
			if want.Kind != combat.ImpactNone {
				if want.Kind == combat.ImpactTank {
					struck++
				}
				break
			}
		}
	}
	if struck < 20 {
		t.Errorf("%d of 300 shells struck a tank: too few to compare", struck)
	}
	if kept*4 > all {
		t.Errorf("the hulls near kept %d of %d", kept, all)
	}
	t.Logf("%d shells struck a tank; %d of %d hulls kept", struck, kept, all)
}
