package combat

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
)

// Reason says why the host refused a shot or a hit claim; Accepted (zero) is no refusal.
type Reason uint8

// The reasons a claim is refused.
const (
	Accepted Reason = iota
	// RejectUnknownShot: no such shot was fired.
	RejectUnknownShot
	// RejectShooterDead: the shooter was destroyed, or had respawned, when it fired.
	RejectShooterDead
	// RejectReload: the shot came sooner after the shooter's previous one than the reload.
	RejectReload
	// RejectImpossible: the shell's time or range is impossible (stamped in the future,
	// impact before firing or after the shell's lifetime, origin out of the shooter's
	// reach, impact time outside the claim's frame).
	RejectImpossible
	// RejectRewind: the claim is older than the rewind cap.
	RejectRewind
	// RejectTerrain: the shell's path meets the terrain or a rock before the impact.
	RejectTerrain
	// RejectTargetDestroyed: the target was already destroyed, or has left the match.
	RejectTargetDestroyed
	// RejectTargetBreak: the target had a continuity break (teleport, respawn) the
	// shooter had not seen when it claimed.
	RejectTargetBreak
	// RejectOffHull: the impact is not on the target's hull as the shooter saw it.
	RejectOffHull
	// NumReasons is the number of reasons, Accepted included.
	NumReasons
)

var reasonNames = [NumReasons]string{"accepted", "unknown_shot", "shooter_dead", "reload", "impossible_time_or_range",
	"rewind_cap", "behind_terrain", "target_destroyed", "target_break", "off_hull"}

// String returns the reason's name as the lab's JSON spells it.
func (r Reason) String() string {
	if r < NumReasons {
		return reasonNames[r]
	}
	return fmt.Sprintf("reason(%d)", uint8(r))
}

// Claim is a shooter's report that its shell hit a tank on its screen.
type Claim struct {
	// Shooter and Shot identify the shot (the shooter's actor id and the shot's ID).
	Shooter, Shot uint32
	// Target is the actor id of the tank hit.
	Target uint32
	// Time is the host-clock time of the shooter's frame that showed the hit, s.
	Time float64
	// Impact is the host-clock time the shell reached the hull, s, within the frame
	// that ends at Time.
	Impact float64
	// Local is the impact point in the target's hull frame, m.
	Local mgl64.Vec3
	// Fired is the shot itself, so that a claim overtaking its fire event (sent
	// reliably, perhaps retransmitted) can still be judged.
	Fired Shot
	// Reckon is how the shooter reckons remote tanks: a player may switch algorithm,
	// clamp mode and latency compensation (game.Match.SetAlgorithm…), and the host rebuilds
	// with the shooter's own.
	Reckon ReckonMode
	// Observer is where the shooter clamped remote tanks from (its player's tank, or
	// the origin without one), world meters: the clamp's rays depend on the distance.
	Observer mgl64.Vec3
	// Applied are the newest updates of the target the shooter had applied, newest
	// first (zero entries: unknown). They tell the host which of the updates it relayed
	// the shooter saw (some are lost on the way) and when, so that the rebuilt blends
	// start where the shooter's did and compensate the same latency.
	Applied [ClaimApplied]Applied
}

// ReckonMode is the part of a peer's remote-tank reckoning it may change at run time.
type ReckonMode struct {
	Algorithm  deadreckon.Algorithm
	Clamp      deadreckon.ClampMode
	Compensate bool
}

// Byte packs m for the wire: algorithm in bits 0–2, clamp mode in bits 3–4, latency
// compensation in bit 5.
func (m ReckonMode) Byte() uint8 {
	b := uint8(m.Algorithm)&7 | uint8(m.Clamp)&3<<3
	if m.Compensate {
		b |= 1 << 5
	}
	return b
}

// ReckonModeOf unpacks a ReckonMode byte.
func ReckonModeOf(b uint8) ReckonMode {
	return ReckonMode{Algorithm: deadreckon.Algorithm(b & 7), Clamp: deadreckon.ClampMode(b >> 3 & 3), Compensate: b&(1<<5) != 0}
}

// ModeOf returns the reckoning mode of configuration c.
func ModeOf(c deadreckon.Config) ReckonMode {
	return ReckonMode{Algorithm: c.Algorithm, Clamp: c.Clamp.Mode, Compensate: c.CompensateLatency}
}

// ClaimApplied is how many applied updates a claim names.
const ClaimApplied = 8

// Applied says when a peer applied an update of an actor.
type Applied struct {
	// Update is the update's owner timestamp, host-clock seconds.
	Update float64
	// At is the host-clock time of the frame the peer applied it in, s.
	At float64
}

// Verdict is the host's decision on a claim.
type Verdict struct {
	// Reason is Accepted or why the claim was refused.
	Reason Reason
	// Rebuilt is the target's hull as the host rebuilt the shooter's view (valid once
	// the rebuild ran).
	Rebuilt HullPose
	// Miss is the distance between the shell at the impact time and the claimed impact
	// point on the rebuilt hull, m (valid once the rebuild ran).
	Miss float64
	// Duplicate reports a repeat of a claim already judged; it is not counted.
	Duplicate bool
}
