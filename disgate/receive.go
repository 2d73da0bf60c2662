package disgate

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/dis"
	"github.com/treadline/treadline/net/wire"
)

// maxDatagram is the largest datagram read, bytes.
const maxDatagram = 65535

// Receive reads PDUs until the gateway is closed (then it returns nil) or the
// socket fails. Entities of other sites and applications in the exercise are kept
// (see Entities); everything else is dropped and counted.
func (g *Gateway) Receive() error {
	buf := make([]byte, maxDatagram)
	for {
		n, _, err := g.conn.ReadFrom(buf)
		if err != nil {
			g.mu.Lock()
			closed := g.closed
			g.mu.Unlock()
			if closed {
				return nil
			}
			return fmt.Errorf("dis gateway: receive: %w", err)
		}
		g.Handle(buf[:n], time.Now())
	}
}

// Handle takes one datagram that arrived at now: a PDU of another simulation's
// entity updates or removes it; anything else is dropped and counted by reason.
func (g *Gateway) Handle(b []byte, now time.Time) {
	g.received.Add(1)
	p, _, err := dis.Parse(b)
	g.mu.Lock()
	defer g.mu.Unlock()
	if err != nil {
		g.drop(dis.Reason(err))
		return
	}
	switch p := p.(type) {
	case *dis.EntityState:
		if p.Exercise != g.cfg.Exercise {
			g.drop(ReasonExercise)
			return
		}
		if p.ID.Site == g.cfg.Site && p.ID.Application == g.cfg.Application {
			g.drop(ReasonOwn)
			return
		}
		e := g.entities[p.ID]
		if e == nil || e.gone {
			if g.kept() >= g.cfg.MaxEntities {
				g.drop(ReasonCap)
				return
			}
			if e == nil {
				e = &entity{id: p.ID}
				g.entities[p.ID] = e
			}
			e.gone = false
		}
		e.s, e.alg = WorldState(g.frame, p)
		e.arrival = now
		e.name, e.force = entityName(p), p.Force
	case *dis.RemoveEntity:
		if p.Exercise != g.cfg.Exercise {
			g.drop(ReasonExercise)
			return
		}
		if p.Originator.Site == g.cfg.Site && p.Originator.Application == g.cfg.Application {
			g.drop(ReasonOwn)
			return
		}
		if e := g.entities[p.Receiver]; e != nil {
			e.gone = true
		}
	}
}

// kept returns how many entities are kept; g.mu held.
func (g *Gateway) kept() int {
	n := 0
	for _, e := range g.entities {
		if !e.gone {
			n++
		}
	}
	return n
}

// EntityTag ends the name of every DIS entity in a match, so players tell them
// from Treadline's tanks.
const EntityTag = " [DIS]"

// entityName returns the match name of p's entity: its marking (printable ASCII),
// or its id, tagged EntityTag.
func entityName(p *dis.EntityState) string {
	name := strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return -1
		}
		return r
	}, p.Marking)
	name = strings.TrimSpace(name)
	if name == "" {
		name = p.ID.String()
	}
	return name + EntityTag
}

// Entity is a DIS entity the gateway keeps.
type Entity struct {
	// ID is its DIS id; Name its match name (marking and EntityTag); Force its force id.
	ID    dis.EntityID
	Name  string
	Force uint8
	// Algorithm is the DIS model it is reckoned with.
	Algorithm deadreckon.Algorithm
	// State is its world state reckoned to the time asked, Time 0.
	State deadreckon.State
}

// Entities expires the entities silent for Timeout at now and appends the others,
// reckoned to now with their own DIS models, to buf.
func (g *Gateway) Entities(buf []Entity, now time.Time) []Entity {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.expire(now)
	for _, e := range g.entities {
		if e.gone {
			continue
		}
		buf = append(buf, Entity{ID: e.id, Name: e.name, Force: e.force, Algorithm: e.alg,
			State: deadreckon.ProjectDIS(e.alg, e.s, now.Sub(e.arrival).Seconds())})
	}
	return buf
}

// expire marks the entities silent for Timeout at now gone; g.mu held.
func (g *Gateway) expire(now time.Time) {
	for _, e := range g.entities {
		if !e.gone && now.Sub(e.arrival) > g.cfg.Timeout {
			e.gone = true
		}
	}
}

// Member is the in-process player DIS entities play under: *net.Client from
// net.Host.JoinLocal.
type Member interface {
	// ID is the player's id.
	ID() uint32
	// HostNow is the host clock, s.
	HostNow() float64
	// Spawn, Publish and Despawn manage the player's tanks.
	Spawn(name string, team int, s deadreckon.State) (uint32, error)
	Publish(actor uint32, s deadreckon.State) error
	Despawn(actor uint32) error
	// Poll drains the player's events.
	Poll(buf []net.Event) []net.Event
}

// DefaultPublishEvery is how often Run publishes every DIS entity's reckoned state.
const DefaultPublishEvery = 200 * time.Millisecond

// Run brings the DIS entities into the match as m's tanks until ctx ends: every
// every (DefaultPublishEvery if zero) each kept entity is reckoned to now with its
// DIS model, set on the ground (ground(x, z) the height at world x, z; nil keeps
// its height) and published; a new one is spawned, on team wire.TeamDIS (m joined
// as a net.LocalConfig.Service), a removed or silent one despawned. It returns ctx's error.
func (g *Gateway) Run(ctx context.Context, m Member, ground func(x, z float64) float64, every time.Duration) error {
	if every <= 0 {
		every = DefaultPublishEvery
	}
	g.member.Store(m.ID())
	tk := time.NewTicker(every)
	defer tk.Stop()
	var events []net.Event
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tk.C:
		}
		events = m.Poll(events[:0])
		g.step(m, ground, time.Now())
	}
}

// step publishes, spawns and despawns the member's tanks once, at now.
func (g *Gateway) step(m Member, ground func(x, z float64) float64, now time.Time) {
	type job struct {
		e     *entity
		id    dis.EntityID
		name  string
		actor uint32
		gone  bool
		state deadreckon.State
	}
	var jobs []job
	g.mu.Lock()
	g.expire(now)
	for id, e := range g.entities {
		if e.gone {
			if e.actor != 0 {
				jobs = append(jobs, job{e: e, id: e.id, name: e.name, actor: e.actor, gone: true})
			}
			delete(g.entities, id)
			continue
		}
		s := deadreckon.ProjectDIS(e.alg, e.s, now.Sub(e.arrival).Seconds())
		jobs = append(jobs, job{e: e, id: e.id, name: e.name, actor: e.actor, state: s})
	}
	g.mu.Unlock()
	t := m.HostNow()
	for _, j := range jobs {
		if j.gone {
			if err := m.Despawn(j.actor); err != nil {
				g.cfg.Logger.Debug("dis: despawn", "entity", j.id.String(), "err", err)
			}
			g.cfg.Logger.Info("dis entity gone", "entity", j.id.String(), "name", j.name)
			continue
		}
		s := j.state
		s.Time = t
		if ground != nil {
			s.Position[1] = ground(s.Position[0], s.Position[2])
			s.Velocity[1], s.Acceleration[1] = 0, 0
		}
		if j.actor == 0 {
			a, err := m.Spawn(j.name, wire.TeamDIS, s)
			if err != nil {
				g.cfg.Logger.Warn("dis: spawn refused", "entity", j.id.String(), "err", err)
				continue
			}
			g.mu.Lock()
			j.e.actor = a
			g.mu.Unlock()
			g.cfg.Logger.Info("dis entity joined", "entity", j.id.String(), "name", j.name, "actor", a)
			continue
		}
		if err := m.Publish(j.actor, s); err != nil {
			g.cfg.Logger.Debug("dis: publish", "entity", j.id.String(), "err", err)
		}
	}
}
