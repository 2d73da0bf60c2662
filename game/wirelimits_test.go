package game

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net/wire"
)

// TestRemoteAcceptsQuantizedTurn: a tank turning (or tumbling off a rock) at the
// limit publishes an angular velocity of length 3 rad/s; the wire rounds each
// component to 1/64 rad/s, and the remote receives it a hair longer. The remote's
// bounds (wire.WidenLimits) accept it, as the host does; the publisher's own bounds, which
// remotes used before, refused it and the HUD counted it as refused. An angular
// velocity past the rounding's reach is still refused.
func TestRemoteAcceptsQuantizedTurn(t *testing.T) {
	pub := DeadReckoning().Reckon.Limits
	remote := wire.WidenLimits(pub)
	for _, c := range []struct {
		name      string
		w         mgl64.Vec3
		pub, want bool // accepted by the publisher's bounds, by the remote's
	}{
		{"seen in practice", mgl64.Vec3{-3, -0.109375, -0.015625}, false, true},
		{"seen in practice, rolling", mgl64.Vec3{-2.828125, 0, 1.015625}, false, true},
		{"at the limit", mgl64.Vec3{0, 3, 0}, true, true},
		{"past the rounding", mgl64.Vec3{0, 3.05, 0}, false, false},
	} {
		s := deadreckon.State{Orientation: mgl64.QuatIdent(), AngularVelocity: c.w}
		_, errPub := pub.Validate(s)
		_, errRemote := remote.Validate(s)
		if (errPub == nil) != c.pub || (errRemote == nil) != c.want {
			t.Errorf("%s: |ω| %.4f rad/s: publisher's bounds accept %v (want %v), remote's %v (want %v)",
				c.name, c.w.Len(), errPub == nil, c.pub, errRemote == nil, c.want)
		}
	}
	if got := wire.WidenLimits(deadreckon.Limits{}); got != (deadreckon.Limits{}) {
		t.Errorf("zero bounds (the defaults) widened to %+v", got)
	}
}
