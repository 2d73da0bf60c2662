package combat

import "github.com/go-gl/mathgl/mgl64"

// AimRange is the farthest a sight marks, m: a sight line that meets nothing nearer
// marks the point this far along it, and a shell that strikes nothing nearer is
// marked where it is after flying this far (AimRange / MuzzleVelocity seconds), so
// the player's markers never vanish over the horizon. It is well past the bots'
// longest range (220 m) and inside a shell's reach (ShellLifetime).
const AimRange = 500.0

// Beyond returns where shot s is after flying AimRange at MuzzleVelocity: the gun's
// mark when its shell strikes nothing nearer.
func (s Shot) Beyond() mgl64.Vec3 {
	return s.At(s.Time + AimRange/MuzzleVelocity)
}
