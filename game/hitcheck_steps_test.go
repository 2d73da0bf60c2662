package game

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestClaimPossible checks the claim's own checks, before any target is looked at:
// each bound of the impact time, the claim's age and the finiteness of every field.
func TestClaimPossible(t *testing.T) {
	h := &HitChecker{cfg: HitCheckConfig{}.withDefaults()} // the claim alone: no map needed
	const fired, at = 10.0, 10.5
	shot := Shot{ID: 1, Shooter: 1, Origin: mgl64.Vec3{}, Direction: mgl64.Vec3{1, 0, 0}, Time: fired}
	good := Claim{Shooter: 1, Shot: 1, Target: 2, Time: 10.45, Impact: 10.4, Local: mgl64.Vec3{0, 0.5, 0}}
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		edit func(c *Claim)
		want Reason
	}{
		{"plausible", func(c *Claim) {}, Accepted},
		{"NaN claim time", func(c *Claim) { c.Time = nan }, RejectImpossible},
		{"infinite impact", func(c *Claim) { c.Impact = math.Inf(1) }, RejectImpossible},
		{"NaN hull point", func(c *Claim) { c.Local[1] = nan }, RejectImpossible},
		{"NaN observer", func(c *Claim) { c.Observer[0] = nan }, RejectImpossible},
		{"NaN applied update", func(c *Claim) { c.Applied[0].Update = nan }, RejectImpossible},
		{"impact before the shot", func(c *Claim) { c.Impact = fired - 0.01 }, RejectImpossible},
		{"impact after the shell's life", func(c *Claim) { c.Impact, c.Time = fired+ShellLifetime+0.01, fired+ShellLifetime+0.01 }, RejectImpossible},
		{"impact after the claim's frame", func(c *Claim) { c.Impact = c.Time + 0.01 }, RejectImpossible},
		{"impact a frame too early", func(c *Claim) { c.Impact = c.Time - DefaultMaxFrame - 0.01 }, RejectImpossible},
		{"claim from the future", func(c *Claim) { c.Time, c.Impact = at+DefaultFutureSlack+0.01, at+DefaultFutureSlack }, RejectImpossible},
		{"older than the rewind", func(c *Claim) { c.Time, c.Impact = at-DefaultMaxRewind-0.01, at-DefaultMaxRewind-0.02 }, RejectRewind},
	} {
		c := good
		tc.edit(&c)
		if got := h.claimPossible(c, shot, at); got != tc.want {
			t.Errorf("%s: claimPossible = %v, want %v", tc.name, got, tc.want)
		}
	}
}
