package net

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/cputime"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/net/wire"
)

// zoneSim drives an offline host's match in simulated time: n players with one tank
// each, spread over the map, driving, stopping and turning at random, each
// publishing hz updates a second. Every step is a coalescing window: the updates of
// the step, the scheduler, the flush; what each player was sent is read back out of
// its outbox.
type zoneSim struct {
	t      testing.TB
	h      *Host
	clk    *ManualClock
	rng    *rand.Rand
	hz     float64
	now    float64
	nextTk float64
	tanks  []*simTank
	// what each player received: recv[observer][actor] is the host time of the last
	// record, recvN the records, bytes the payload bytes of its datagrams.
	recv   []map[wire.ActorID]float64
	shown  []map[wire.ActorID]float64 // the host time of the newest state received
	recvN  []int
	bytes  []int
	dgramN int
	ctrl   []int    // the bytes of each player's control frames
	log    []uint64 // hash input: (observer, actor, seq) of every record sent, in order
	spawn  []int    // spawn messages each player received
	w      *wire.BatchWriter
	// host is the time spent in the host's code (relay, scheduling, flush), when
	// timed is set, and hostCPU the CPU time its thread spent there (cpuOK: read;
	// the caller locks its goroutine to its thread).
	host    time.Duration
	hostCPU time.Duration
	cpuOK   bool
	timed   bool
	// the step's datagrams, published together at its end: pubs[i]'s is
	// dgrams[pubs[i].from:pubs[i+1].from]
	pubs   []published
	dgrams []byte
}

// published is one datagram of a step.
type published struct {
	p    *member
	from int
}

// mark is when a timed section of the host's code began: the wall clock and the
// thread's CPU time.
type mark struct {
	wall time.Time
	cpu  time.Duration
}

// simTank is one player's tank as the simulation drives it.
type simTank struct {
	p              *member
	a              *hostActor
	pos            mgl64.Vec3
	heading, speed float64
	turn           float64
	seq            uint16
	next           float64 // next publish, host time
	steady         bool    // no random starts, stops and turns
	bare           bool    // no articulations (tankload's bots)
}

func newZoneSim(t testing.TB, n int, extent float64, lim Limits, seed uint64) *zoneSim {
	t.Helper()
	clk := &ManualClock{}
	lim.RespawnInterval = -1
	h := offlineHost(t, HostConfig{Clock: clk, Limits: lim, Match: MatchSettings{Extent: extent}})
	s := &zoneSim{t: t, h: h, clk: clk, rng: rand.New(rand.NewPCG(seed, 7)), hz: 10, w: wire.NewBatchWriter(0),
		recv: make([]map[wire.ActorID]float64, n+1), shown: make([]map[wire.ActorID]float64, n+1), recvN: make([]int, n+1), bytes: make([]int, n+1), spawn: make([]int, n+1)}
	for i := range n {
		p := h.m.addMember(wire.PlayerID(i+1), fmt.Sprintf("p%03d", i), discardConn{}, s.now)
		st := &simTank{p: p, heading: s.rng.Float64() * 2 * math.Pi, speed: s.rng.Float64() * 10,
			pos: mgl64.Vec3{(s.rng.Float64()*2 - 1) * extent * 0.9, 0, (s.rng.Float64()*2 - 1) * extent * 0.9}}
		st.next = s.rng.Float64() / s.hz
		s.recv[i+1] = map[wire.ActorID]float64{}
		s.shown[i+1] = map[wire.ActorID]float64{}
		s.tanks = append(s.tanks, st)
		s.spawnTank(st)
	}
	s.drain()
	return s
}

// addTank adds a player, id the next, with st as its tank, spawned where st is.
func (s *zoneSim) addTank(name string, st *simTank) {
	st.p = s.h.m.addMember(wire.PlayerID(len(s.recv)), name, discardConn{}, s.now)
	s.recv = append(s.recv, map[wire.ActorID]float64{})
	s.shown = append(s.shown, map[wire.ActorID]float64{})
	s.recvN, s.bytes, s.spawn = append(s.recvN, 0), append(s.bytes, 0), append(s.spawn, 0)
	s.tanks = append(s.tanks, st)
	s.spawnTank(st)
}

func (s *zoneSim) spawnTank(st *simTank) {
	state := s.state(st)
	if err := s.h.m.spawn(st.p, st.p.name, uint8(st.p.id%2), st.seq, state, s.now); err != nil {
		s.t.Fatal(err)
	}
	st.a = st.p.owned[len(st.p.owned)-1]
}

func (s *zoneSim) state(st *simTank) deadreckon.State {
	state := tankAt(st.pos[0], st.pos[2])
	state.Orientation = geom.YawQuat(st.heading)
	state.Velocity = mgl64.Vec3{math.Cos(st.heading), 0, -math.Sin(st.heading)}.Mul(st.speed)
	state.AngularVelocity = mgl64.Vec3{0, st.turn, 0}
	state.Articulations[0].Angle = st.heading // the turret looks about
	if st.bare {
		state.NumArticulations = 0
	}
	state.Time = s.now
	return state
}

// step advances the simulation by dt: the tanks move, publish when due, and the
// host schedules and flushes.
func (s *zoneSim) step(dt float64) {
	s.now += dt
	s.clk.Advance(time.Duration(dt * float64(time.Second)))
	ext := s.h.match.Extent * 0.95
	for _, st := range s.tanks {
		// Now and then a start, a stop or a turn.
		if s.rng.Float64() < dt/3 && !st.steady {
			switch s.rng.IntN(3) {
			case 0:
				st.speed = 0
			case 1:
				st.speed = 2 + s.rng.Float64()*10
			default:
				st.turn = (s.rng.Float64()*2 - 1) * 0.5
			}
		}
		st.heading += st.turn * dt
		st.pos = st.pos.Add(mgl64.Vec3{math.Cos(st.heading), 0, -math.Sin(st.heading)}.Mul(st.speed * dt))
		for k := 0; k <= 2; k += 2 {
			if math.Abs(st.pos[k]) > ext {
				st.pos[k] = math.Copysign(ext, st.pos[k])
				st.heading += math.Pi
			}
		}
		if s.now >= st.next && st.a != nil {
			st.next += 1 / s.hz
			st.seq++
			state := s.state(st)
			s.w.Reset()
			if err := s.w.Add(&wire.Update{Actor: st.a.id, Seq: st.seq, State: state}); err != nil {
				s.t.Fatal(err)
			}
			s.pubs = append(s.pubs, published{p: st.p, from: len(s.dgrams)})
			s.dgrams = append(s.dgrams, s.w.Bytes()...)
		}
	}
	// The host's work of the step in one timed section: the step's datagrams in the
	// order their tanks published them, the tick, the choices, the flush. (A
	// section's two reads of the thread's clock cost about 2.5 µs of its CPU on
	// this shared machine: a section per datagram would charge a 64-tank match,
	// about one datagram a step, twice what it charges a 512-tank one.)
	t0 := s.clock()
	for i, pub := range s.pubs {
		end := len(s.dgrams)
		if i+1 < len(s.pubs) {
			end = s.pubs[i+1].from
		}
		s.h.m.onDatagram(pub.p, s.dgrams[pub.from:end], s.now)
	}
	s.pubs, s.dgrams = s.pubs[:0], s.dgrams[:0]
	if s.now >= s.nextTk {
		s.nextTk = s.now + downlinkTick
		s.h.m.zonesTick(s.now)
	}
	s.h.m.scheduleDirty(s.now)
	s.h.m.flushAll()
	s.since(t0)
	if !s.timed {
		s.drain()
		return
	}
	for _, q := range s.h.m.order { // what the send loops would do
		_, batches, _ := q.out.take(nil, nil, nil)
		q.out.recycle(batches)
		clear(q.out.ctrl)
		q.out.ctrl = q.out.ctrl[:0]
	}
}

func (s *zoneSim) clock() mark {
	if !s.timed {
		return mark{}
	}
	c, ok := cputime.Thread()
	s.cpuOK = ok
	return mark{wall: time.Now(), cpu: c}
}

// since adds the time from t0 to host and hostCPU.
func (s *zoneSim) since(t0 mark) {
	if !s.timed {
		return
	}
	s.host += time.Since(t0.wall)
	if c, ok := cputime.Thread(); ok && s.cpuOK {
		s.hostCPU += c - t0.cpu
	}
}

// drain reads every player's outbox.
func (s *zoneSim) drain() {
	for _, q := range s.h.m.order {
		ctrl, batches, _ := q.out.take(nil, nil, nil)
		i := int(q.id)
		for _, w := range batches {
			s.dgramN++
			s.bytes[i] += len(w.Bytes())
			r, err := wire.ReadBatch(w.Bytes())
			if err != nil {
				s.t.Fatal(err)
			}
			var u wire.Update
			for r.Next(&u) {
				s.recv[i][u.Actor] = s.now
				s.shown[i][u.Actor] = math.Max(s.shown[i][u.Actor], unwrapTime(u.State.Time, s.now))
				s.recvN[i]++
				s.log = append(s.log, uint64(i)<<32|uint64(u.Actor)<<16|uint64(u.Seq))
			}
		}
		q.out.recycle(batches)
		for len(s.ctrl) <= i {
			s.ctrl = append(s.ctrl, 0)
		}
		for _, b := range ctrl {
			s.ctrl[i] += len(b)
		}
		fr := wire.NewFrameReader(bytes.NewReader(bytes.Join(ctrl, nil)))
		for {
			msg, err := fr.Next()
			if err != nil {
				break
			}
			if _, ok := msg.(*wire.Spawn); ok {
				s.spawn[i]++
			}
		}
	}
}

// distance returns the ground distance between the host's states of two tanks.
func distance(a, b *hostActor) float64 { return planar(a.state.Position.Sub(b.state.Position)) }
