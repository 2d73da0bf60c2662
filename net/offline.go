package net

import (
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net/wire"
)

// Offline is a host with no socket and no run loop, driven in simulated time by one
// caller: players join and spawn, their datagrams go through the host's own
// acceptance, relay and downlink scheduler, and what each player is sent is read back
// out of its outbox. The lab measures a crowd's downlink through it (drlab -crowd),
// so that the numbers are the real host's and not a model's. Not safe for concurrent
// use.
type Offline struct {
	h     *Host
	clk   *ManualClock
	next  float64 // next downlink tick, host time
	ctrl  [][]byte
	batch []*wire.BatchWriter
	probe []clockProbe
	dgram [][]byte
}

// NewOffline returns an offline host for cfg (its Clock is replaced by the
// simulation's, which starts at 0; Addr and the TLS settings are unused).
func NewOffline(cfg HostConfig) (*Offline, error) {
	clk := &ManualClock{}
	cfg.Clock = clk
	cfg, lim, match, err := populateHostConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("offline host: %w", err)
	}
	h := &Host{cfg: cfg, lim: lim, grounded: cfg.Mover != nil && cfg.Mover.Grounded(), match: match,
		log: slog.New(slog.DiscardHandler), clock: clk, start: 0}
	h.m = newMatch(h)
	return &Offline{h: h, clk: clk}, nil
}

// advance moves the host's clock to at and returns it in host seconds.
func (o *Offline) advance(at time.Duration) float64 {
	o.clk.Set(at)
	return o.h.now()
}

// Join adds a player called name at time at and returns its id. The player is the
// host's own code (its spawns are not paced), like the bots a host runs.
func (o *Offline) Join(name string, at time.Duration) (uint32, error) {
	now := o.advance(at)
	id, ok := o.h.m.allocPlayer()
	if !ok {
		return 0, fmt.Errorf("offline host: join %q: no free player id", name)
	}
	p := o.h.m.addMember(id, name, offlineConn{}, now)
	p.inProcess = true
	o.h.m.queueZones(p)
	return uint32(id), nil
}

// Spawn enters a tank of player for it at time at, as its Spawn message would, and
// returns the tank's actor id.
func (o *Offline) Spawn(player uint32, name string, team int, s deadreckon.State, at time.Duration) (uint32, error) {
	now := o.advance(at)
	p := o.member(player)
	if p == nil {
		return 0, fmt.Errorf("offline host: spawn: no player %d", player)
	}
	s.Time = now
	if err := o.h.m.spawn(p, name, uint8(min(max(team, 0), math.MaxUint8)), 0, s, now); err != nil {
		return 0, fmt.Errorf("offline host: %w", err)
	}
	return uint32(p.owned[len(p.owned)-1].id), nil
}

// Despawn removes player's tank actor at time at, as its Despawn message would.
func (o *Offline) Despawn(player, actor uint32, at time.Duration) error {
	o.advance(at)
	a := o.h.m.actors[wire.ActorID(actor)]
	if a == nil || uint32(a.owner) != player {
		return fmt.Errorf("offline host: despawn: player %d has no actor %d", player, actor)
	}
	o.h.m.despawn(a, wire.DespawnRemoved)
	return nil
}

// Control hands the host a control message from player (a wire.Route, a chat line),
// arrived at time at on its reliable stream.
func (o *Offline) Control(player uint32, msg wire.Message, at time.Duration) {
	now := o.advance(at)
	if p := o.member(player); p != nil {
		o.h.m.onControl(p, msg, nil, now)
	}
}

// Datagram hands the host a datagram from player, arrived at time at.
func (o *Offline) Datagram(player uint32, b []byte, at time.Duration) {
	now := o.advance(at)
	if p := o.member(player); p != nil {
		o.h.m.onDatagram(p, b, now)
	}
}

// Step ends a coalescing window at time at: the downlink tick when one is due, the
// scheduling of what the window offered, and the flush of every player's batches
// into its outbox.
func (o *Offline) Step(at time.Duration) {
	now := o.advance(at)
	m := &o.h.m
	if now >= o.next {
		o.next = now + downlinkTick
		m.zonesTick(now)
	}
	m.scheduleDirty(now)
	m.flushAll()
}

// Take empties player's outbox: datagram is called with each datagram's payload and
// control with each control frame, in the order queued (the frames are the reliable
// stream's, in order; datagrams are independent of them).
func (o *Offline) Take(player uint32, datagram func([]byte), control func([]byte)) {
	p := o.member(player)
	if p == nil {
		return
	}
	o.ctrl, o.batch, o.probe = p.out.take(o.ctrl[:0], o.batch[:0], o.probe[:0])
	o.dgram = p.out.takeDatagrams(o.dgram[:0])
	for _, w := range o.batch {
		if datagram != nil {
			datagram(w.Bytes())
		}
	}
	for _, b := range o.dgram {
		if datagram != nil {
			datagram(b)
		}
	}
	for _, b := range o.ctrl {
		if control != nil {
			control(b)
		}
	}
	p.out.recycle(o.batch)
	clear(o.ctrl)
	clear(o.batch)
	clear(o.dgram)
}

// Stats returns the host's counters.
func (o *Offline) Stats() HostStats { return o.h.m.statsNow() }

// Downlink returns the budget each player's scheduled state updates keep to, bytes
// per second, and whether the scheduler is on (the match holds more than
// Limits.ZonesAbove tanks).
func (o *Offline) Downlink() (float64, bool) {
	z := o.h.m.zones
	if z == nil {
		return 0, false
	}
	return z.rate, z.on
}

func (o *Offline) member(player uint32) *member {
	if player > maxPlayerID {
		return nil
	}
	return o.h.m.members[wire.PlayerID(player)]
}

// offlineConn is an Offline player's connection: its outbox is read by Take, so
// nothing goes anywhere else.
type offlineConn struct{}

func (offlineConn) sendDatagram([]byte) error { return nil }
func (offlineConn) writeControl([]byte) error { return nil }
func (offlineConn) close(quicCode, string)    {}
func (offlineConn) remoteAddr() string        { return "offline" }
func (offlineConn) rtt() time.Duration        { return 0 }
