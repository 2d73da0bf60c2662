package net

import (
	"bytes"
	"cmp"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net/wire"
)

// zonedLimits are limits with the scheduler on whatever the match's size.
func zonedLimits(downlink int) Limits { return Limits{Downlink: downlink, ZonesAbove: -1} }

// TestZonesBudgetAndFloor runs random matches and checks, for every player, that the
// state bytes it was sent stay within its budget (its burst, the rate over the run,
// and what had to go outside it), that no tank within interestRadius of its tank
// goes unsent for more than 5 s, and that the state the player shows of a tank that
// has been within interestRadius for a second is never older than maxShown.
func TestZonesBudgetAndFloor(t *testing.T) {
	const (
		dt        = 0.002
		seconds   = 20.0
		maxSilent = 5.0
		// maxShown is the oldest state a player may show of a tank within
		// interestRadius, s: forced at 4.5 s, it goes within a tick, and it may be a
		// publishing interval old when it goes; with a link's delay under 0.3 s
		// that is within 5 s.
		maxShown = 4.5 + downlinkTick + 0.1 + 0.01
	)
	for _, c := range []struct {
		n        int
		extent   float64
		downlink int
		seed     uint64
	}{
		{48, 256, 8000, 1},
		{128, 512, 16000, 3},
		{96, 384, 4000, 4},
		{64, 150, 600, 11}, // every tank of interest to every player, 18 records a second: the floor forced
	} {
		s := newZoneSim(t, c.n, c.extent, zonedLimits(c.downlink), c.seed)
		// entered[o][a]: when tank a last came within interestRadius of o's tank.
		entered := make([]map[wire.ActorID]float64, c.n+1)
		for i := range entered {
			entered[i] = map[wire.ActorID]float64{}
		}
		worst, oldest := 0.0, 0.0
		for s.now < seconds {
			s.step(dt)
			if math.Mod(s.now, 0.1) >= dt {
				continue // the pairs every 0.1 s: enough to see a 5 s gap
			}
			for _, o := range s.tanks {
				for _, a := range s.tanks {
					if o == a {
						continue
					}
					i := int(o.p.id)
					if distance(o.a, a.a) > interestRadius {
						delete(entered[i], a.a.id)
						continue
					}
					if _, ok := entered[i][a.a.id]; !ok {
						entered[i][a.a.id] = s.now
					}
					since := math.Max(entered[i][a.a.id], s.recv[i][a.a.id])
					worst = math.Max(worst, s.now-since)
					if s.now-entered[i][a.a.id] >= 1 {
						age := s.now - s.shown[i][a.a.id]
						oldest = math.Max(oldest, age)
						if age > maxShown {
							t.Errorf("n %d budget %d: player %d shows tank %d %.0f m away %.2f s old at %.2f s",
								c.n, c.downlink, i, a.a.id, distance(o.a, a.a), age, s.now)
						}
					}
					if s.now-since > maxSilent {
						t.Fatalf("n %d budget %d: tank %d %.0f m from player %d's tank unsent for %.2f s at %.2f s",
							c.n, c.downlink, a.a.id, distance(o.a, a.a), i, s.now-since, s.now)
					}
				}
			}
		}
		st := s.h.m.stats
		burst := math.Max(float64(c.downlink)*downlinkBurst, wire.MaxBatchSize)
		most := 0.0
		for _, q := range s.h.m.order {
			i := int(q.id)
			bound := float64(c.downlink)*s.now + burst + float64(q.bypassed)
			if float64(s.bytes[i]) > bound {
				t.Errorf("n %d budget %d: player %d sent %d bytes in %.0f s, over %.0f (%d outside the budget)",
					c.n, c.downlink, i, s.bytes[i], s.now, bound, q.bypassed)
			}
			if uint64(s.bytes[i]) != q.downBytes {
				t.Errorf("player %d: the scheduler counted %d bytes, its datagrams hold %d", i, q.downBytes, s.bytes[i])
			}
			most = math.Max(most, float64(s.bytes[i])/s.now)
		}
		t.Logf("n %d on ±%.0f m, budget %d B/s: the busiest player %.0f B/s; %d records sent, %d overwritten, %d bytes outside the budget (%d records forced); longest silence within %.0f m %.2f s, oldest state shown %.2f s",
			c.n, c.extent, c.downlink, most, st.Scheduled, st.Overwritten, st.DownlinkBypass, st.DownlinkForced, interestRadius, worst, oldest)
	}
}

// TestZonesOffIsRelay checks that with the budget off, or a match no larger than
// ZonesAbove, every update goes to every other player.
func TestZonesOffIsRelay(t *testing.T) {
	for _, lim := range []Limits{{Downlink: -1}, {}} {
		s := newZoneSim(t, 16, 256, lim, 5)
		for s.now < 2 {
			s.step(0.002)
		}
		st := s.h.m.stats
		if st.Relayed != st.Accepted*15 || st.Scheduled != 0 {
			t.Errorf("downlink %d: %d accepted, %d relayed (want 15 each), %d scheduled", lim.Downlink, st.Accepted, st.Relayed, st.Scheduled)
		}
	}
}

// TestZonesEventsNotDropped checks that spawns go to every player whatever the
// budget, and that a tank entering a player's interest reaches it though the budget
// is spent.
func TestZonesEventsNotDropped(t *testing.T) {
	s := newZoneSim(t, 64, 512, zonedLimits(500), 6) // 12 records a second: far too few
	for s.now < 3 {
		s.step(0.002)
	}
	// Respawn a third of the tanks elsewhere: everyone hears of every spawn.
	before := append([]int(nil), s.spawn...)
	for i, st := range s.tanks {
		if i%3 != 0 {
			continue
		}
		s.h.m.despawn(st.a, 0)
		st.pos = mgl64.Vec3{(s.rng.Float64()*2 - 1) * 400, 0, (s.rng.Float64()*2 - 1) * 400}
		st.seq++
		s.spawnTank(st)
	}
	s.drain()
	for i := 1; i < len(s.spawn); i++ {
		if got := s.spawn[i] - before[i]; got != 22 {
			t.Errorf("player %d heard of %d spawns, want 22", i, got)
		}
	}
	// Over the budget, a tank that comes well within interestRadius (from well beyond
	// it) still goes out at once: within a coarse cycle and a tick of its coming.
	// armed[k]: the last time the pair was seen beyond interestRadius+30; from
	// there to within interestRadius-10 the host must see it come in.
	armed := map[[2]wire.ActorID]float64{}
	entered := map[[2]wire.ActorID]float64{}
	late, came := 0, 0
	for first := true; s.now < 20; first = false {
		s.step(0.002)
		if !first && math.Mod(s.now, 0.05) >= 0.002 {
			continue
		}
		for _, o := range s.tanks {
			for _, a := range s.tanks {
				if o == a {
					continue
				}
				k := [2]wire.ActorID{o.a.id, a.a.id}
				d := distance(o.a, a.a)
				t0, in := entered[k]
				switch {
				case d > interestRadius+30:
					armed[k] = s.now
					delete(entered, k)
				case d <= interestRadius-10 && !in && armed[k] > 0:
					entered[k] = s.now
					came++
				case in && t0 > 0 && s.now-t0 > coarseCycle+2*downlinkTick+0.1:
					if s.recv[o.p.id][a.a.id] < armed[k] {
						late++
					}
					entered[k] = -1 // checked
				}
			}
		}
	}
	t.Logf("%d tanks came within %.0f m of a player's tank", came, interestRadius)
	if late > 0 {
		t.Errorf("%d tanks entering a player's interest did not reach it within %.2f s", late, coarseCycle+2*downlinkTick+0.1)
	}
	if s.h.m.stats.DownlinkBypass == 0 {
		t.Error("nothing went outside the budget")
	}
}

// TestZonesFollowObserver checks that what a player is sent follows its tank: near
// one group of tanks it hears from them more than from a group across the map, and
// after its tank respawns by the other group, the other way round.
func TestZonesFollowObserver(t *testing.T) {
	s := newZoneSim(t, 41, 512, zonedLimits(8000), 7)
	// Twenty tanks about (-350, 0), twenty about (350, 0), all driving; the
	// observer, tank 0, parked among the first group.
	for i, st := range s.tanks {
		x := -350.0
		if i > 20 {
			x = 350
		}
		s.h.m.despawn(st.a, 0)
		st.pos = mgl64.Vec3{x + float64(i%5)*10, 0, float64(i%7) * 10}
		st.speed, st.turn = 4, 0.3
		if i == 0 {
			st.speed, st.turn = 0, 0
		}
		s.spawnTank(st)
	}
	count := func() (west, east int) {
		seen := map[wire.ActorID]int{}
		o := s.tanks[0].p.id
		start := len(s.log)
		t0 := s.now
		for s.now < t0+5 {
			s.step(0.002)
		}
		for _, e := range s.log[start:] {
			if wire.PlayerID(e>>32) == o {
				seen[wire.ActorID(e>>16)]++
			}
		}
		for i, st := range s.tanks[1:] {
			if i+1 <= 20 {
				west += seen[st.a.id]
			} else {
				east += seen[st.a.id]
			}
		}
		return west, east
	}
	s.step(0.002)
	w, e := count()
	if w < 4*e {
		t.Errorf("parked in the west: %d records from the west, %d from the east", w, e)
	}
	obs := s.tanks[0]
	s.h.m.despawn(obs.a, 0)
	obs.pos = mgl64.Vec3{350, 0, 20}
	s.spawnTank(obs)
	count() // settle
	w2, e2 := count()
	if e2 < 4*w2 {
		t.Errorf("moved east: %d records from the west, %d from the east", w2, e2)
	}
	t.Logf("west %d/east %d, then west %d/east %d", w, e, w2, e2)
}

// TestZonesDeterministic checks that the same seed and inputs give the same records
// in the same order.
func TestZonesDeterministic(t *testing.T) {
	run := func() uint64 {
		s := newZoneSim(t, 80, 384, zonedLimits(6000), 9)
		for s.now < 5 {
			s.step(0.002)
		}
		h := fnv.New64a()
		for _, e := range s.log {
			var b [8]byte
			for i := range b {
				b[i] = byte(e >> (8 * i))
			}
			h.Write(b[:])
		}
		return h.Sum64()
	}
	if a, b := run(), run(); a != b {
		t.Errorf("two runs of one seed sent different records: %x, %x", a, b)
	}
}

// TestZonesObserverIsHostsView checks that a player's place is its tank's accepted
// state (the nearest of its tanks), or its last tank's place when it has none.
func TestZonesObserverIsHostsView(t *testing.T) {
	p := &member{place: mgl64.Vec3{50, 0, 0}}
	if _, d := p.observer(mgl64.Vec3{50, 0, 40}); d != 40 {
		t.Errorf("tankless: distance %v, want 40 from its last place", d)
	}
	for _, x := range []float64{-100, 200} {
		p.owned = append(p.owned, &hostActor{state: deadreckon.State{Position: mgl64.Vec3{x, 0, 0}}})
	}
	if a, d := p.observer(mgl64.Vec3{180, 3, 0}); a != p.owned[1] || d != 20 {
		t.Errorf("two tanks: nearest %v at %v, want the one at 200 at 20", a.state.Position, d)
	}
}

// TestZonesEngage checks that the scheduler takes over past ZonesAbove tanks and
// hands back to the relay to everyone once the match shrinks to three quarters of it.
func TestZonesEngage(t *testing.T) {
	s := newZoneSim(t, 24, 256, Limits{ZonesAbove: 20}, 8)
	for s.now < 1 {
		s.step(0.002)
	}
	if s.h.m.stats.Scheduled == 0 || !s.h.m.zones.on {
		t.Fatal("24 tanks, above 20: the scheduler did not take over")
	}
	for _, st := range s.tanks[14:] {
		s.h.m.despawn(st.a, wire.DespawnRemoved)
		st.a = nil
	}
	if s.h.m.zones.on {
		t.Fatal("14 tanks, 20 × 3/4 = 15 or fewer: the scheduler is still on")
	}
	st0 := s.h.m.stats
	for s.now < 2 {
		s.step(0.002)
	}
	st := s.h.m.stats
	if acc, rel := st.Accepted-st0.Accepted, st.Relayed-st0.Relayed; rel != 23*acc || st.Scheduled != st0.Scheduled {
		t.Errorf("after handing back: %d accepted, %d relayed (want 23 each: the tankless players watch too), %d scheduled", acc, rel, st.Scheduled-st0.Scheduled)
	}
}

// TestZonesSilentSpawn checks a tank that has spawned but published nothing yet: a
// player near it from the start and one driving into its interest are owed nothing
// of it (the Spawn carried its state; there is no record to send, and an empty one is
// never queued), and its first update reaches both once it comes.
func TestZonesSilentSpawn(t *testing.T) {
	const first = 4.0 // when the silent tank first publishes, s
	s := newZoneSim(t, 3, 512, zonedLimits(32000), 10)
	var logged bytes.Buffer
	s.h.log = slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelError}))
	place := func(st *simTank, x, speed, heading float64) {
		s.h.m.despawn(st.a, wire.DespawnRemoved)
		st.pos = mgl64.Vec3{x, 0, 0}
		st.speed, st.heading, st.turn, st.steady = speed, heading, 0, true
		st.seq++
		s.spawnTank(st)
	}
	silent, near, coming := s.tanks[0], s.tanks[1], s.tanks[2]
	place(silent, 0, 0, 0)
	place(near, 50, 0, 0)           // within interestRadius from the start
	place(coming, 320, 10, math.Pi) // westward at 10 m/s: within interestRadius at about 2 s
	silent.next = first
	s.drain()
	id := silent.a.id
	entered := -1.0
	for s.now < first-0.01 {
		s.step(0.002)
		if entered < 0 && distance(coming.a, silent.a) <= interestRadius {
			entered = s.now
		}
	}
	if entered < 0 || entered > first-downlinkTick-coarseCycle {
		t.Fatalf("the coming tank entered the silent one's interest at %.2f s, want before %.2f s", entered, first-downlinkTick-coarseCycle)
	}
	for _, o := range []*simTank{near, coming} {
		if at, ok := s.recv[o.p.id][id]; ok {
			t.Errorf("player %d was sent a record of the silent tank at %.2f s, before it published", o.p.id, at)
		}
	}
	for s.now < first+coarseCycle+2*downlinkTick {
		s.step(0.002)
	}
	for _, o := range []*simTank{near, coming} {
		if at := s.recv[o.p.id][id]; at < first {
			t.Errorf("player %d %.0f m away was not sent the silent tank's first update (last record at %.2f s)",
				o.p.id, distance(o.a, silent.a), at)
		}
	}
	// Every record the scheduler counted, repeats included, is in a datagram: none
	// was empty.
	got := 0
	for _, n := range s.recvN {
		got += n
	}
	st := s.h.m.stats
	if uint64(got) != st.Scheduled+st.Repeated || st.RecordErrors != 0 || logged.Len() > 0 {
		t.Errorf("scheduled %d records and %d repeats, the datagrams hold %d; %d record errors; log %q",
			st.Scheduled, st.Repeated, got, st.RecordErrors, logged.String())
	}
	for _, q := range s.h.m.order {
		if uint64(s.bytes[q.id]) != q.downBytes {
			t.Errorf("player %d: the scheduler counted %d bytes, its datagrams hold %d", q.id, q.downBytes, s.bytes[q.id])
		}
	}
}

// TestZonesChargeOther checks that the control frames a player is sent are charged to
// its downlink budget, so that the states give way to them, into debt by one burst
// at most.
func TestZonesChargeOther(t *testing.T) {
	s := newZoneSim(t, 4, 256, zonedLimits(32000), 12)
	msg := &wire.Chat{Text: strings.Repeat("news ", 40)}
	frame, err := wire.AppendFrame(nil, msg)
	if err != nil {
		t.Fatal(err)
	}
	q := s.h.m.order[0]
	before := q.budget.Tokens(s.now)
	s.h.m.broadcast(msg)
	if got := before - q.budget.Tokens(s.now); got != float64(len(frame)) {
		t.Errorf("one frame of %d bytes charged %v", len(frame), got)
	}
	for range 2 * int(q.budget.Burst()) / len(frame) {
		s.h.m.broadcast(msg)
	}
	if got, least := q.budget.Tokens(s.now), -q.budget.Burst(); got < least-1e-9 || got > least+float64(len(frame)) {
		t.Errorf("after a storm of frames the budget holds %v, want %v", got, least)
	}
	if s.h.m.stats.DownlinkOther == 0 {
		t.Error("DownlinkOther not counted")
	}
}

// TestZonesSilentOwnerNotForced checks that the record of a tank whose owner has
// gone silent is sent again to a player near it as a refresh, within the budget, and
// never forced outside it however old the state grows: resending it would make the
// player's state no younger.
func TestZonesSilentOwnerNotForced(t *testing.T) {
	s := newZoneSim(t, 3, 512, zonedLimits(32000), 13)
	silent, near := s.tanks[0], s.tanks[1]
	for i, st := range []*simTank{silent, near} {
		s.h.m.despawn(st.a, wire.DespawnRemoved)
		st.pos = mgl64.Vec3{float64(i) * 50, 0, 0}
		st.speed, st.turn, st.steady = 0, 0, true
		st.seq++
		s.spawnTank(st)
	}
	s.drain()
	for s.now < 0.5 {
		s.step(0.002)
	}
	silent.next = math.Inf(1)
	for s.now < 10 {
		s.step(0.002)
	}
	if st := s.h.m.stats; st.DownlinkForced != 0 {
		t.Errorf("%d records forced outside the budget of a tank whose owner is silent", st.DownlinkForced)
	}
	if got := s.recv[near.p.id][silent.a.id]; got < 9 {
		t.Errorf("the silent tank's record last refreshed to the player 50 m away at %.2f s", got)
	}
}

// TestKthHighest holds the schedule's selection to a sort: whatever the runs of
// equal values (the musts' infinities, tanks offered together), the k-th highest is
// the one a sort puts k-th; and the sort of the chosen (sortRanked) to the generic
// sort, highest first and equal priorities by tie.
func TestKthHighest(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	for _, tc := range []struct {
		name    string
		n, vals int // values drawn from vals distinct ones (0: any)
		inf     int // of which infinite
	}{
		{"one", 1, 0, 0},
		{"distinct", 240, 0, 0},
		{"few values", 240, 3, 0},
		{"all equal", 100, 1, 0},
		{"infinities", 240, 0, 30},
		{"all infinite", 50, 0, 50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 50 {
				v := make([]float64, tc.n)
				for i := range v {
					switch {
					case i < tc.inf:
						v[i] = math.Inf(1)
					case tc.vals > 0:
						v[i] = float64(rng.IntN(tc.vals))
					default:
						v[i] = rng.Float64() * 100
					}
				}
				rng.Shuffle(len(v), func(i, j int) { v[i], v[j] = v[j], v[i] })
				sorted := slices.Clone(v)
				slices.SortFunc(sorted, func(x, y float64) int { return cmp.Compare(y, x) })
				k := 1 + rng.IntN(tc.n)
				if got := kthHighest(slices.Clone(v), k); got != sorted[k-1] {
					t.Fatalf("k %d of %d: got %g, want %g", k, tc.n, got, sorted[k-1])
				}
				r := make([]ranked, len(v))
				for i, p := range v {
					r[i] = ranked{p: p, tie: int32(rng.IntN(1 << 16)), i: int32(i)}
				}
				want := slices.Clone(r)
				slices.SortFunc(want, func(x, y ranked) int {
					if c := cmp.Compare(y.p, x.p); c != 0 {
						return c
					}
					return cmp.Compare(x.tie, y.tie)
				})
				if sortRanked(r); !slices.EqualFunc(r, want, func(x, y ranked) bool { return x.p == y.p && x.tie == y.tie }) {
					t.Fatalf("sorted %v, want %v", r, want)
				}
			}
		})
	}
}

// TestZonesTold checks that the host tells its players when its scheduler comes on
// and goes off (wire.Zones), every player once, and a player joining while it is on
// as it joins; a match that never grows past ZonesAbove hears nothing of it.
func TestZonesTold(t *testing.T) {
	o, err := NewOffline(HostConfig{Limits: Limits{ZonesAbove: 2}, Match: MatchSettings{Extent: 400}})
	if err != nil {
		t.Fatal(err)
	}
	// heard returns the Zones messages player p was sent since the last call.
	heard := func(p uint32) []bool {
		var on []bool
		o.Take(p, nil, func(b []byte) {
			if m, _, err := wire.Parse(b[2:]); err == nil { // past the frame's length
				if z, ok := m.(*wire.Zones); ok {
					on = append(on, z.On)
				}
			}
		})
		return on
	}
	var players, actors []uint32
	for i := range 4 {
		p, err := o.Join(fmt.Sprintf("p%d", i), 0)
		if err != nil {
			t.Fatal(err)
		}
		players = append(players, p)
	}
	spawn := func(i int) {
		a, err := o.Spawn(players[i], fmt.Sprintf("p%d", i), 1, tankAt(float64(i)*50, 0), 0)
		if err != nil {
			t.Fatal(err)
		}
		actors = append(actors, a)
	}
	for i := range 2 {
		spawn(i)
	}
	o.Step(10 * time.Millisecond)
	for _, p := range players {
		if on := heard(p); len(on) != 0 {
			t.Errorf("2 tanks, ZonesAbove 2: player %d heard %v", p, on)
		}
	}
	spawn(2)
	o.Step(20 * time.Millisecond)
	for _, p := range players {
		if on := heard(p); len(on) != 1 || !on[0] {
			t.Errorf("3 tanks: player %d heard %v, want [true]", p, on)
		}
	}
	late, err := o.Join("late", 30*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	players = append(players, late)
	o.Step(40 * time.Millisecond)
	if on := heard(late); len(on) != 1 || !on[0] {
		t.Errorf("a player joining with the scheduler on heard %v, want [true]", on)
	}
	for i := 2; i >= 1; i-- { // 1 tank left: 2 × 3/4 rounds down to 1
		if err := o.Despawn(players[i], actors[i], 50*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	o.Step(60 * time.Millisecond)
	for _, p := range players {
		if on := heard(p); len(on) != 1 || on[0] {
			t.Errorf("1 tank: player %d heard %v, want [false]", p, on)
		}
	}
}

// TestZonesShortcutsSame checks that the choice's shortcuts (the force check skipped
// before forceAt, the selection among the last k-th's candidates) send the same
// records in the same order as the plain choice: matches with backlogs of far tanks
// (the budget short of a dense match) and with tanks forced within 300 m.
func TestZonesShortcutsSame(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n        int
		extent   float64
		downlink int
		seconds  float64
		forced   bool // the run forces tanks (the force check is exercised)
	}{
		{"backlog", 128, 384, 8000, 4, false},
		{"forced", 64, 150, 600, 8, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(plain bool) ([]uint64, HostStats, uint64) {
				s := newZoneSim(t, tc.n, tc.extent, zonedLimits(tc.downlink), 3)
				s.h.m.zones.plain = plain
				for s.now < tc.seconds {
					s.step(0.002)
				}
				return s.log, s.h.m.stats, s.h.m.zones.narrowed
			}
			want, st, plainNarrowed := run(true)
			got, _, narrowed := run(false)
			if plainNarrowed != 0 {
				t.Fatalf("the plain choice took the shortcut %d times", plainNarrowed)
			}
			if narrowed == 0 {
				t.Error("no choice was made among candidates: the shortcut is untested")
			}
			if tc.forced && st.DownlinkForced == 0 {
				t.Error("no tank was forced: the force check is untested")
			}
			if len(want) == 0 {
				t.Fatal("nothing sent")
			}
			if len(got) != len(want) {
				t.Fatalf("%d records sent, %d by the plain choice", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("record %d of %d differs from the plain choice's: %x, want %x", i, len(want), got[i], want[i])
				}
			}
			t.Logf("%d records, %d forced, %d choices among candidates", len(want), st.DownlinkForced, narrowed)
		})
	}
}
