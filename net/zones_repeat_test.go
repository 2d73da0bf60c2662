package net

import (
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/net/wire"
)

// TestZonesRepeat checks the repeats: a near tank's new record goes to a player a
// second time, once, a tick or two after the first; a farther tank's only when it is
// a heartbeat (repeatGap after the state sent before) within interestRadius; never
// one the budget has no room for, and never an older record after a newer one.
func TestZonesRepeat(t *testing.T) {
	for _, c := range []struct {
		name string
		dist float64 // of the publishing tank from the observer's, m
		// at are the times the tank publishes, s; want how many copies of each the
		// observer receives.
		at   []float64
		want []int
		// starve: a budget of 200 B/s, emptied after each step that sent the
		// observer a record: no room for a repeat a tick later.
		starve bool
	}{
		{"near", 60, []float64{0.6, 0.8}, []int{2, 2}, false},
		{"near, a newer one before the repeat", 60, []float64{0.6, 0.61}, []int{1, 2}, false},
		{"near, no room in the budget", 60, []float64{0.6, 1.4}, []int{1, 1}, true},
		{"farther, a heartbeat then a moving tank's update", 250, []float64{0.6, 0.7}, []int{2, 1}, false},
		{"farther, heartbeats", 250, []float64{0.6, 1.2}, []int{2, 2}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			budget := 32000
			if c.starve {
				budget = 200
			}
			s := newZoneSim(t, 0, 512, zonedLimits(budget), 5)
			// Two parked tanks, c.dist apart, publishing only when the test says.
			for i, x := range []float64{0, c.dist} {
				s.addTank(fmt.Sprintf("p%d", i), &simTank{pos: mgl64.Vec3{x, 0, 0}, steady: true, next: math.Inf(1)})
			}
			s.drain()
			obs, pub := s.tanks[0], s.tanks[1]
			q := obs.p
			publish := func(st *simTank) {
				st.seq++
				s.w.Reset()
				if err := s.w.Add(&wire.Update{Actor: st.a.id, Seq: st.seq, State: s.state(st)}); err != nil {
					t.Fatal(err)
				}
				s.h.m.onDatagram(st.p, s.w.Bytes(), s.now)
			}
			s.step(0.1)
			publish(obs)
			type copyOf struct {
				seq uint16
				at  float64
			}
			var got []copyOf
			next := 0
			// Until half a second after the last publish: before the refresh of a
			// record unchanged for refreshAge.
			for s.now < c.at[len(c.at)-1]+0.5 {
				if next < len(c.at) && s.now >= c.at[next]-1e-9 {
					publish(pub)
					next++
				}
				n := len(s.log)
				s.step(0.01)
				for _, e := range s.log[n:] {
					if int(e>>32) == int(q.id) && uint16(e>>16) == uint16(pub.a.id) {
						got = append(got, copyOf{seq: uint16(e), at: s.now})
					}
				}
				if c.starve && len(got) > 0 && got[len(got)-1].at == s.now {
					q.budget.Spend(q.budget.Tokens(s.now), s.now)
				}
			}
			count := map[uint16]int{}
			first := map[uint16]float64{}
			for i, g := range got {
				if i > 0 && g.seq < got[i-1].seq {
					t.Errorf("record %d sent after the newer %d at %.2f s", g.seq, got[i-1].seq, g.at)
				}
				if count[g.seq] == 0 {
					first[g.seq] = g.at
				} else if d := g.at - first[g.seq]; d < downlinkTick/2 || d > 2*downlinkTick+0.011 {
					t.Errorf("record %d repeated %.3f s after the first copy, want one or two ticks", g.seq, d)
				}
				count[g.seq]++
			}
			for i, w := range c.want {
				if n := count[uint16(i+1)]; n != w {
					t.Errorf("record %d (published at %.2f s) sent %d times, want %d", i+1, c.at[i], n, w)
				}
			}
			st := s.h.m.stats
			t.Logf("%d repeated, %d skipped for want of room; copies %v", st.Repeated, st.RepeatsSkipped, got)
			if c.starve && st.RepeatsSkipped == 0 {
				t.Error("no repeat was skipped with the budget empty")
			}
		})
	}
}

// TestZonesRespawnOffersNear checks that a player whose tank respawns among tanks it
// was sent only as far ones holds their latest records at once, from the window of
// its spawn, not from its next coarse tick.
func TestZonesRespawnOffersNear(t *testing.T) {
	s := newZoneSim(t, 3, 1024, zonedLimits(32000), 12)
	place := func(st *simTank, x float64) {
		s.h.m.despawn(st.a, wire.DespawnRemoved)
		st.pos = mgl64.Vec3{x, 0, 0}
		st.speed, st.turn, st.steady = 0, 0, true
		st.seq++
		s.spawnTank(st)
	}
	obs, a, b := s.tanks[0], s.tanks[1], s.tanks[2]
	place(obs, -800)
	place(a, 700)
	place(b, 760)
	for s.now < 3 {
		s.step(0.01)
	}
	// Mid-way between two ticks, so that no tick offers anything in the window.
	for s.nextTk-s.now < downlinkTick/2 {
		s.step(0.01)
	}
	before := map[wire.ActorID]float64{a.a.id: s.shown[obs.p.id][a.a.id], b.a.id: s.shown[obs.p.id][b.a.id]}
	place(obs, 600)
	s.h.m.scheduleDirty(s.now)
	s.h.m.flushAll()
	s.drain()
	for _, st := range []*simTank{a, b} {
		if got, want := s.shown[obs.p.id][st.a.id], st.a.state.Time; math.Abs(got-want) > 1e-3 {
			t.Errorf("tank %d %.0f m from the respawned tank: its player holds its state of %.2f s (%.2f s before the respawn), want the latest, %.2f s",
				st.a.id, distance(obs.a, st.a), got, before[st.a.id], want)
		}
	}
}

// TestZonesRespawnResendsFar: a player respawns 250 m from a silent tank whose latest
// record it was sent a moment before, as a far one. That datagram may have been
// lost, and nothing newer will come (the owner is silent), so the record goes to it
// again at the respawn, outside the budget: not a coarse tick and refreshAge later.
func TestZonesRespawnResendsFar(t *testing.T) {
	s := newZoneSim(t, 3, 1024, zonedLimits(32000), 12)
	place := func(st *simTank, x float64) {
		s.h.m.despawn(st.a, wire.DespawnRemoved)
		st.pos = mgl64.Vec3{x, 0, 0}
		st.speed, st.turn, st.steady = 0, 0, true
		st.seq++
		s.spawnTank(st)
	}
	obs, a, b := s.tanks[0], s.tanks[1], s.tanks[2]
	place(obs, -800)
	place(a, 700)
	place(b, 760)
	for s.now < 3 {
		s.step(0.01)
	}
	a.next = math.Inf(1) // silent from now on
	s.step(0.01)
	last := s.recv[obs.p.id][a.a.id]
	for s.recv[obs.p.id][a.a.id] == last && s.now < 6 {
		s.step(0.01)
	}
	if s.recv[obs.p.id][a.a.id] == last {
		t.Fatalf("the silent tank's latest record never went to the far player")
	}
	// Mid-way between two ticks, after the one that sent it, so that no tick offers
	// anything in the window.
	sent := s.recv[obs.p.id][a.a.id]
	s.step(0.01)
	for s.nextTk-s.now < downlinkTick/2 {
		s.step(0.01)
	}
	if s.recv[obs.p.id][a.a.id] != sent {
		t.Fatalf("the silent tank's record went to the far player again before the respawn")
	}
	place(obs, 450)
	s.h.m.scheduleDirty(s.now)
	s.h.m.flushAll()
	s.drain()
	if got := s.recv[obs.p.id][a.a.id]; got != s.now {
		t.Errorf("respawned %.0f m from a silent tank it was sent at %.2f s as a far one: last sent it at %.2f s, want again at the respawn, %.2f s",
			distance(obs.a, a.a), sent, got, s.now)
	}
}
