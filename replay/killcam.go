package replay

import (
	"errors"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/terrain"
)

// killCam replays the seconds before a kill as the shooter saw them: the target as
// the shooter's dead reckoning showed it, from the target's own updates, each
// delivered to the shooter two one-way delays after its owner stamped it (owner to
// host, host to shooter, the shooter's link taken to be like the recorder's), and the
// target's hull as the host rebuilt the shooter's view when it judged the hit.
type killCam struct {
	kill    Kill
	until   float64
	stream  []Received // the target's updates, Arrival at the shooter (recorder's clock)
	next    int
	actor   *deadreckon.Actor
	rebuilt *game.Ghost
}

// ErrNoKill is returned by KillCam for a recording without kills.
var ErrNoKill = errors.New("replay: no tank was destroyed in this recording")

// Kills returns the recording's kills.
func (p *Player) Kills() []Kill { return p.rec.Kills }

// KillBefore returns the last kill of one of the recorder's own tanks at or before
// t, or, when it has none, the last kill of any tank; false when no kill came before t.
func (p *Player) KillBefore(t float64) (Kill, bool) {
	var any, own *Kill
	for i := range p.rec.Kills {
		k := &p.rec.Kills[i]
		if k.Time > t+1e-9 {
			break
		}
		any = k
		if v := p.rec.Tanks[k.Target]; v != nil && v.Own {
			own = k
		}
	}
	switch {
	case own != nil:
		return *own, true
	case any != nil:
		return *any, true
	}
	return Kill{}, false
}

// KillCam plays the KillCamLead seconds before kill k from the shooter's side: the
// replay seeks there, and until just after the kill its snapshots show the target as
// the shooter saw it, with the host's rebuild of that view at the hit.
func (p *Player) KillCam(k Kill) error { return p.KillCamFor(k, KillCamLead) }

// KillCamFor is KillCam starting lead seconds before the kill (a live match's kill
// camera fits between the death and the respawn).
func (p *Player) KillCamFor(k Kill, lead float64) error {
	target := p.rec.Tanks[k.Target]
	if target == nil {
		return ErrNoKill
	}
	if err := p.Seek(k.Time - lead); err != nil {
		return err
	}
	kc := &killCam{kill: k, until: k.Time + KillCamTail}
	kc.stream = p.shooterView(target)
	cfg := p.rec.Meta.DeadReckoning.Reckon
	if p.rec.Meta.DeadReckoning == (deadreckon.PublisherConfig{}) {
		cfg = game.DeadReckoning().Reckon
	}
	kc.actor = deadreckon.NewActor(cfg)
	kc.rebuilt = p.rebuiltHull(k)
	// Catch the shooter's view up to now.
	kc.feed(p.t, p.rec.ClockOffset(p.t), p.cfg.Map, p.camera)
	p.kill = kc
	return nil
}

// LastDeath returns the last kill of one of the recorder's own tanks, and false
// when the recording holds none: what a live kill camera replays.
func (p *Player) LastDeath() (Kill, bool) {
	for i := len(p.rec.Kills) - 1; i >= 0; i-- {
		if k := p.rec.Kills[i]; p.rec.Tanks[k.Target] != nil && p.rec.Tanks[k.Target].Own {
			return k, true
		}
	}
	return Kill{}, false
}

// KillOf returns the last kill of tank id, and false when it was never destroyed.
func (p *Player) KillOf(id uint32) (Kill, bool) {
	for i := len(p.rec.Kills) - 1; i >= 0; i-- {
		if k := p.rec.Kills[i]; k.Target == id {
			return k, true
		}
	}
	return Kill{}, false
}

// KillCamOn returns the kill the kill camera is showing, and whether it is on.
func (p *Player) KillCamOn() (Kill, bool) {
	if p.kill == nil {
		return Kill{}, false
	}
	return p.kill.kill, true
}

// StopKillCam ends the kill camera; the replay plays on from where it is.
func (p *Player) StopKillCam() { p.kill = nil }

// shooterView returns target's updates as a shooter received them.
func (p *Player) shooterView(target *Tank) []Received {
	lat := p.rec.Latency()
	var out []Received
	add := func(s deadreckon.State) {
		at := s.Time + 2*lat
		out = append(out, Received{State: s, Arrival: at - p.rec.ClockOffset(at)})
	}
	if target.Own {
		for _, s := range target.Sent {
			s.Time = math.Max(0, s.Time+p.rec.ClockOffset(s.Time))
			add(s)
		}
	} else {
		for _, r := range target.Received {
			add(r.State)
		}
	}
	return out
}

// rebuiltHull returns the hull the host rebuilt for the hit that made kill k, if the
// recording holds its verdict.
func (p *Player) rebuiltHull(k Kill) *game.Ghost {
	var g *game.Ghost
	for _, it := range p.rec.Events {
		if it.Time > k.Time+1e-9 {
			break
		}
		if it.Event.Kind != net.EventMessage {
			continue
		}
		if hr, ok := it.Event.Message.(*wire.HitResult); ok && hr.Verdict == 0 &&
			uint32(hr.Shooter) == k.Shooter && uint32(hr.Target) == k.Target {
			g = &game.Ghost{Kind: game.GhostRebuilt, Of: k.Target, Position: hr.Position, Orientation: hr.Orientation}
		}
	}
	return g
}

// feed hands the shooter's view the target's updates that reached the shooter by t,
// and reckons it to t; offset is the host clock minus the recorder's.
func (kc *killCam) feed(t, offset float64, g *terrain.Map, camera mgl64.Vec3) {
	for ; kc.next < len(kc.stream) && kc.stream[kc.next].Arrival <= t; kc.next++ {
		u := kc.stream[kc.next]
		if !kc.actor.HasState() {
			_ = kc.actor.Break(u.State, u.Arrival)
			continue
		}
		_ = kc.actor.Receive(u.State, u.Arrival) // refusals leave the view as it was
	}
	if !kc.actor.HasState() {
		return
	}
	kc.actor.SetClockOffset(offset)
	kc.actor.Advance(t)
	kc.actor.ClampTo(g, camera)
}

// apply shows the target as the shooter saw it in dst, with the rebuilt hull.
func (kc *killCam) apply(dst *game.Snapshot) {
	for i := range dst.Tanks {
		tv := &dst.Tanks[i]
		if tv.ID != kc.kill.Target || !kc.actor.HasState() {
			continue
		}
		r := kc.actor.Reckoned()
		tv.Position, tv.Orientation = r.Position, r.Orientation
		if r.NumArticulations > 1 {
			tv.Turret, tv.Gun = r.Articulations[0].Angle, r.Articulations[1].Angle
		}
		if kc.rebuilt != nil {
			g := *kc.rebuilt
			g.Error = g.Position.Sub(tv.Position).Len()
			dst.Ghosts = append(dst.Ghosts, g)
		}
	}
}
