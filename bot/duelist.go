package bot

import (
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/terrain"
)

// Duelist is a bot outside a match: the driving of a match's bots and a Gunner, for
// measuring combat on tanks the caller simulates (the lab's duel). A Duelist is not
// safe for concurrent use.
type Duelist struct {
	drive *Driver
	gun   *Gunner
	other []mgl64.Vec3
}

// NewDuelist returns a duelist on map m that keeps its waypoints margin meters inside
// the border (0: DefaultMargin) and shoots at difficulty d; seed makes it
// deterministic.
func NewDuelist(m *terrain.Map, d Difficulty, seed uint64, margin float64) *Duelist {
	return &Duelist{drive: NewDriver(Config{Map: m, Seed: seed, Margin: margin}), gun: NewGunner(m, d, seed^0xd1e1)}
}

// Input returns the input of the duelist's tank, at pose p at time now (s), among
// targets, and whether it fires now (only when loaded): it drives as a bot does and,
// with an enemy in view, aims as its Gunner does.
func (b *Duelist) Input(now float64, p physics.Pose, targets []Target, loaded bool) (physics.Input, bool) {
	b.other = b.other[:0]
	for _, t := range targets {
		b.other = append(b.other, t.Position)
	}
	in := b.drive.Drive(now, p, b.other)
	a := b.gun.Aim(now, p, targets, loaded)
	if a.Engaged {
		in.AimYaw, in.GunElevation = a.AimYaw, a.GunElevation
	}
	return in, a.Fire
}
