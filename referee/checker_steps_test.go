package referee

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
)

// TestClaimPossible checks the claim's own checks, before any target is looked at:
// each bound of the impact time, the claim's age and the finiteness of every field.
func TestClaimPossible(t *testing.T) {
	h := &Checker{cfg: CheckerConfig{}.withDefaults()} // the claim alone: no map needed
	const fired, at = 10.0, 10.5
	shot := combat.Shot{ID: 1, Shooter: 1, Origin: mgl64.Vec3{}, Direction: mgl64.Vec3{1, 0, 0}, Time: fired}
	good := combat.Claim{Shooter: 1, Shot: 1, Target: 2, Time: 10.45, Impact: 10.4, Local: mgl64.Vec3{0, 0.5, 0}}
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		edit func(c *combat.Claim)
		want combat.Reason
	}{
		{"plausible", func(c *combat.Claim) {}, combat.Accepted},
		{"NaN claim time", func(c *combat.Claim) { c.Time = nan }, combat.RejectImpossible},
		{"infinite impact", func(c *combat.Claim) { c.Impact = math.Inf(1) }, combat.RejectImpossible},
		{"NaN hull point", func(c *combat.Claim) { c.Local[1] = nan }, combat.RejectImpossible},
		{"NaN observer", func(c *combat.Claim) { c.Observer[0] = nan }, combat.RejectImpossible},
		{"NaN applied update", func(c *combat.Claim) { c.Applied[0].Update = nan }, combat.RejectImpossible},
		{"impact before the shot", func(c *combat.Claim) { c.Impact = fired - 0.01 }, combat.RejectImpossible},
		{"impact after the shell's life", func(c *combat.Claim) {
			c.Impact, c.Time = fired+combat.ShellLifetime+0.01, fired+combat.ShellLifetime+0.01
		}, combat.RejectImpossible},
		{"impact after the claim's frame", func(c *combat.Claim) { c.Impact = c.Time + 0.01 }, combat.RejectImpossible},
		{"impact a frame too early", func(c *combat.Claim) { c.Impact = c.Time - DefaultMaxFrame - 0.01 }, combat.RejectImpossible},
		{"claim from the future", func(c *combat.Claim) { c.Time, c.Impact = at+DefaultFutureSlack+0.01, at+DefaultFutureSlack }, combat.RejectImpossible},
		{"older than the rewind", func(c *combat.Claim) { c.Time, c.Impact = at-DefaultMaxRewind-0.01, at-DefaultMaxRewind-0.02 }, combat.RejectRewind},
	} {
		c := good
		tc.edit(&c)
		if got := h.claimPossible(c, shot, at); got != tc.want {
			t.Errorf("%s: claimPossible = %v, want %v", tc.name, got, tc.want)
		}
	}
}
