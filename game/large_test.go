package game

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/internal/cputime"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/referee"
	"github.com/treadline/treadline/terrain"
)

// startLargeMatch starts a match of n tanks (the player and n-1 bots) on the map for
// large matches, every tank one peer's, spawned at once, on simulated time; with
// combat, the host's referee places the spawns and the bots take teams 1 and 2.
func startLargeMatch(tb testing.TB, n int, withCombat bool) (*gametest.Rig, *Match, *terrain.Map) {
	tb.Helper()
	mp, err := terrain.Load("../assets/maps/expanse.json")
	if err != nil {
		tb.Fatal(err)
	}
	cfg := gametest.Config{Seed: 1, Extent: mp.Size()[0] / 2,
		Limits: net.Limits{MaxActorsPerPlayer: n, ControlBurst: float64(2 * n)}}
	if withCombat {
		if cfg.Judge, err = referee.New(mp, combat.Rules{}, DeadReckoning().Reckon); err != nil {
			tb.Fatal(err)
		}
	}
	rig := newRig(tb, cfg)
	return rig, mustMatch(tb, Config{Map: mp, Bots: n - 1, Seed: 3}, join(tb, rig)), mp
}

// TestLargeMatch: a full match of MaxBots+1 tanks on expanse, with and without the
// referee's spawn rule, puts every tank on the map, at least spawnClearance from every
// other and clear of every rock, and steps a simulated second with all of them in it.
func TestLargeMatch(t *testing.T) {
	if testing.Short() {
		t.Skip("512 tanks")
	}
	t.Parallel()
	for _, withCombat := range []bool{false, true} {
		if raceEnabled && !withCombat {
			continue // several times slower: the referee's way, where host and peer meet, is the one to race
		}
		t.Run(fmt.Sprintf("combat=%v", withCombat), func(t *testing.T) {
			t.Parallel()
			testLargeMatch(t, withCombat)
		})
	}
}

func testLargeMatch(t *testing.T, withCombat bool) {
	const n = MaxBots + 1
	rig, m, mp := startLargeMatch(t, n, withCombat)
	var snap Snapshot
	m.Snapshot(&snap)
	if len(snap.Tanks) != n {
		t.Fatalf("%d tanks, want %d", len(snap.Tanks), n)
	}
	const slack = 1e-6
	for i, a := range snap.Tanks {
		pa := mgl64.Vec2{a.Position[0], a.Position[2]}
		if !mp.Contains(pa[0], pa[1]) {
			t.Errorf("%s spawned off the map at %v", a.Name, pa)
		}
		for _, o := range mp.Obstacles() {
			if d := pa.Sub(mgl64.Vec2{o.X, o.Z}).Len(); d < o.Radius+spawnClearance/2-slack {
				t.Errorf("%s spawned %.1f m from a rock of radius %.1f", a.Name, d, o.Radius)
			}
		}
		for _, b := range snap.Tanks[i+1:] {
			if d := pa.Sub(mgl64.Vec2{b.Position[0], b.Position[2]}).Len(); d < spawnClearance-slack {
				t.Errorf("%s and %s spawned %.1f m apart, want at least %v", a.Name, b.Name, d, spawnClearance)
			}
		}
	}
	now := 0.0
	for range 30 {
		now += tick
		rig.SetNow(now)
		mustStep(t, m, now, physics.Input{Throttle: 1})
	}
	m.Snapshot(&snap)
	if len(snap.Tanks) != n {
		t.Errorf("%d tanks after a second, want %d", len(snap.Tanks), n)
	}

	// The grid's answers are the scans': every tank's nearest other, and the tanks
	// within a bot's sight, in order.
	m.aims = m.aims[:0]
	for _, tk := range m.tanks {
		m.aims = append(m.aims, tk.view.Position)
	}
	if !m.near.index(m.tanks) {
		t.Fatal("a match of 512 tanks is not indexed")
	}
	for _, tk := range m.tanks {
		p := tk.view.Position
		if got, want := m.nearestIndexed(tk, p), m.nearestScan(tk, p); got != want {
			t.Errorf("tank %d: nearest other %v in the grid, %v by a scan", tk.id, got, want)
		}
		const sight = 140.0
		var want []mgl64.Vec3
		for _, q := range m.aims {
			if q.Sub(p).Len() < sight {
				want = append(want, q)
			}
		}
		var got []mgl64.Vec3
		for _, q := range m.appendNear(nil, true, p, sight) {
			if q.Sub(p).Len() < sight {
				got = append(got, q)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("tank %d: %d tanks in sight in the grid, %d by a scan", tk.id, len(got), len(want))
		}
	}
}

// BenchmarkLargeMatch measures one tick of a peer that simulates and publishes every
// tank of a match on expanse, the player's and the bots'.
func BenchmarkLargeMatch(b *testing.B) {
	for _, n := range []int{64, MaxBots + 1} {
		b.Run(fmt.Sprintf("tanks=%d", n), func(b *testing.B) {
			rig, m, _ := startLargeMatch(b, n, false)
			now := 0.0
			for range 30 {
				now += tick
				rig.SetNow(now)
				mustStep(b, m, now, physics.Input{Throttle: 1})
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				now += tick
				rig.SetNow(now)
				mustStep(b, m, now, physics.Input{Throttle: 1})
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/tick")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/tank")
		})
	}
}

// BenchmarkRemoteStep measures one tick of a player's peer that reckons, clamps and
// shows n-1 remote tanks on expanse (the bots run on another peer, stepped outside the
// timer): the client's per-frame simulation in a large match, with every view field
// filled (an overlay on) and, ",overlays=off", without the ones only overlays read.
// ",fps=5" steps the player's peer once every 12 of the bots' ticks, with a camera
// view along its tank's heading, as the client steps a 512-tank practice on software
// GL: each frame then carries a fifth of a second of updates, sweep samples and
// physics steps. ",fps=9" steps a 64-tank peer once every 7 ticks, as software GL
// draws a 64-tank practice on a slow machine. worker-cpu-ms/tick is the CPU time of
// the Reckoner's worker threads in the timed steps (Match.WorkerCPU).
func BenchmarkRemoteStep(b *testing.B) {
	mp, err := terrain.Load("../assets/maps/expanse.json")
	if err != nil {
		b.Fatal(err)
	}
	details := []struct {
		name string
		d    ViewDetail
	}{{"", ViewDetail{}}, {",overlays=off", ViewDetail{NoProjection: true, NoTrails: true}}}
	for _, n := range []int{64, MaxBots + 1} {
		for _, d := range details {
			b.Run(fmt.Sprintf("tanks=%d%s", n, d.name), func(b *testing.B) {
				benchRemoteStep(b, mp, n, d.d, 1)
			})
		}
	}
	b.Run(fmt.Sprintf("tanks=%d,overlays=off,fps=5", MaxBots+1), func(b *testing.B) {
		benchRemoteStep(b, mp, MaxBots+1, details[1].d, 12)
	})
	b.Run("tanks=64,overlays=off,fps=9", func(b *testing.B) {
		benchRemoteStep(b, mp, 64, details[1].d, 7)
	})
}

// benchRemoteStep times BenchmarkRemoteStep's ticks of n tanks on mp, the viewer's
// views filled as d says. Past one tick a step (ticks), the viewer steps once every
// ticks of the bots' and gives a camera view from its tank.
func benchRemoteStep(b *testing.B, mp *terrain.Map, n int, d ViewDetail, ticks int) {
	rig, owner, viewer := crowdPeers(b, mp, n-1)
	viewer.SetViewDetail(d)
	now := 0.0
	step := func() {
		now += tick
		rig.SetNow(now)
		mustStep(b, owner, now, physics.Input{})
	}
	for range 60 {
		step()
		mustStep(b, viewer, now, physics.Input{Throttle: 1})
	}
	var snap Snapshot
	// The thread's CPU time in the timed ticks, as tanks -bench-frames counts the
	// client's own: a shared machine's wait for a core is not in it, nor the other
	// goroutines' work (the links', the Reckoner's worker's).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var cpu, workers time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		for range ticks {
			step()
		}
		if ticks > 1 {
			// The chase camera's cone, about: behind the tank, along its heading,
			// the picture's half-diagonal at 60° by 16:9.
			v := &viewer.self.view
			fwd := geom.Rotate(v.Orientation, mgl64.Vec3{1, 0, 0})
			viewer.SetCameraView(v.Position.Sub(fwd.Mul(16)).Add(mgl64.Vec3{0, 5, 0}), fwd, 0.87)
		}
		b.StartTimer()
		w0, _ := viewer.WorkerCPU()
		c0, _ := cputime.Thread()
		mustStep(b, viewer, now, physics.Input{Throttle: 1})
		viewer.Snapshot(&snap)
		c1, _ := cputime.Thread()
		w1, _ := viewer.WorkerCPU()
		cpu += c1 - c0
		workers += w1 - w0
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/tick")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/1e6, "cpu-ms/tick")
	// The Reckoner's worker threads' share (past 256 remote tanks): moved off the
	// ticking thread, not saved.
	b.ReportMetric(float64(workers.Nanoseconds())/float64(b.N)/1e6, "worker-cpu-ms/tick")
	b.ReportMetric(float64(len(snap.Tanks)), "tanks")
}

// crowdPeers starts a match on mp of two peers: one of the given number of bots
// and no player, and a player's, which shows them all as remote tanks.
func crowdPeers(tb testing.TB, mp *terrain.Map, bots int) (rig *gametest.Rig, owner, player *Match) {
	tb.Helper()
	rig = newRig(tb, gametest.Config{Seed: 1, Extent: mp.Size()[0] / 2,
		Limits: net.Limits{MaxActorsPerPlayer: bots + 1, ControlBurst: float64(2 * (bots + 1))}})
	owner = mustMatch(tb, Config{Map: mp, NoPlayer: true, Bots: bots, Seed: 3}, join(tb, rig))
	player = mustMatch(tb, Config{Map: mp, Seed: 4}, join(tb, rig))
	return rig, owner, player
}

// TestLargeMatchReckonsInParallel: a peer that shows more than largeMatch remote
// tanks reckons them on the Reckoner's worker goroutines (the race detector watches
// them share the map and the rocks), and shows exactly what a peer that reckons them
// on its own goroutine (after Close) shows, frame for frame, up to the difference of
// their clock syncs, for every tank whose updates reached both peers at the same
// frames.
func TestLargeMatchReckonsInParallel(t *testing.T) {
	t.Parallel()
	mp, err := terrain.Load("../assets/maps/expanse.json")
	if err != nil {
		t.Fatal(err)
	}
	const n, frames = 300, 45 // two of the Reckoner's pages of 256: two shares of work
	rig := newRig(t, gametest.Config{Seed: 1, Extent: mp.Size()[0] / 2,
		Limits: net.Limits{MaxActorsPerPlayer: n, ControlBurst: float64(2 * n)}})
	owner := mustMatch(t, Config{Map: mp, NoPlayer: true, Bots: n, Seed: 3}, join(t, rig))
	parallel := mustMatch(t, Config{Map: mp, NoPlayer: true, Seed: 4}, join(t, rig))
	serial := mustMatch(t, Config{Map: mp, NoPlayer: true, Seed: 4}, join(t, rig))
	defer parallel.Close()
	serial.Close()
	var sp, ss Snapshot
	// The host's links deliver on goroutines of their own, so on a loaded machine
	// one peer may hear an update a frame later than the other: what it shows then
	// differs by a blend begun a frame apart, or a low-mode clamp counted from
	// another frame. Each peer's arrivals of each tank are folded into a hash
	// (frame and state), and only tanks heard alike from the start are compared.
	heard := [2]map[int]arrivals{{}, {}}
	now, compared := 0.0, 0
	for f := range frames {
		now += tick
		rig.SetNow(now)
		mustStep(t, owner, now, physics.Input{})
		mustStep(t, parallel, now, physics.Input{})
		mustStep(t, serial, now, physics.Input{})
		parallel.Snapshot(&sp)
		serial.Snapshot(&ss)
		if len(sp.Tanks) != len(ss.Tanks) {
			t.Fatalf("frame %d: %d and %d tanks", f, len(sp.Tanks), len(ss.Tanks))
		}
		for i := range sp.Tanks {
			a, b := sp.Tanks[i], ss.Tanks[i]
			ha, hb := heard[0][int(a.ID)].hear(f, sp.Known[i].LastKnown), heard[1][int(b.ID)].hear(f, ss.Known[i].LastKnown)
			heard[0][int(a.ID)], heard[1][int(b.ID)] = ha, hb
			if a.ID != b.ID || ha != hb || a.UpdateAge != b.UpdateAge {
				continue // the two links delivered its updates at different frames
			}
			compared++
			// The peers' clock syncs differ by a hair, so the reckonings do too: by
			// as far as the tank moves in that hair (a loaded machine widens it); a
			// tank the parallel peer failed to advance for a frame would stand a
			// frame's drive apart, 0.2 m at 12 m/s.
			skew := math.Abs(parallel.clockOffset() - serial.clockOffset())
			tol := 0.05 + 2*skew*math.Max(a.Velocity.Len(), b.Velocity.Len())
			if a.Position.Sub(b.Position).Len() > tol || math.Abs(geom.WrapAngle(a.Turret-b.Turret)) > 0.05 || a.Mode != b.Mode {
				t.Fatalf("frame %d, tank %d: shown at %v %v turret %v (%v) in parallel, %v %v turret %v (%v) serially (%.3f m apart, clock syncs %.1f ms apart)",
					f, a.ID, a.Position, a.Orientation, a.Turret, a.Mode, b.Position, b.Orientation, b.Turret, b.Mode,
					a.Position.Sub(b.Position).Len(), skew*1000)
			}
		}
	}
	if len(sp.Tanks) != n {
		t.Errorf("%d remote tanks shown, want %d", len(sp.Tanks), n)
	}
	t.Logf("%d of %d tank frames heard alike by both peers and compared", compared, frames*n)
	if compared < frames*n/10 {
		t.Errorf("%d tank frames heard alike by both peers, want at least a tenth of %d", compared, frames*n)
	}
	// The parallel peer started its workers, and their threads' clocks are read
	// (Linux); the serial one, closed before its first step, started none.
	if runtime.GOOS == "linux" && runtime.GOMAXPROCS(0) > 1 {
		if _, ok := parallel.WorkerCPU(); !ok {
			t.Error("the parallel peer's WorkerCPU read no worker thread")
		}
	}
	if c, ok := serial.WorkerCPU(); ok {
		t.Errorf("the serial peer's WorkerCPU read %v of worker threads it never started", c)
	}
}

// arrivals folds the frames at which a peer heard a tank's updates, and the states
// heard, into one hash: two peers with equal arrivals heard the tank alike.
type arrivals struct {
	last deadreckon.State
	hash uint64
}

// hear returns h after frame f, in which the peer's last known state of the tank was
// s: a state other than the last is an arrival.
func (h arrivals) hear(f int, s deadreckon.State) arrivals {
	if s == h.last {
		return h
	}
	x := h.hash ^ uint64(f)<<32 ^ math.Float64bits(s.Time) ^ math.Float64bits(s.Position[0])
	x *= 0x9e3779b97f4a7c15 // Fibonacci hashing's multiplier: mixes the bits
	return arrivals{last: s, hash: x ^ x>>29}
}

// TestPlayerPeerSkipsIndex: a player's peer in a large match, its one tank among
// remote ones, never fills the grid of the tanks (it finds its tank's nearest other
// by a scan, and has no bot to look around), while a peer of many bots does.
func TestPlayerPeerSkipsIndex(t *testing.T) {
	mp, err := terrain.Load("../assets/maps/expanse.json")
	if err != nil {
		t.Fatal(err)
	}
	const n = largeMatch + 16
	rig, owner, player := crowdPeers(t, mp, n)
	stepPeers(t, rig, owner, player, 0, 10)
	if len(player.tanks) != n+1 {
		t.Fatalf("the player's peer shows %d tanks, want %d", len(player.tanks), n+1)
	}
	if player.near.g != nil {
		t.Errorf("the player's peer filled the grid of %d tanks", player.near.n)
	}
	if owner.near.g == nil || owner.near.n != len(owner.tanks) {
		t.Errorf("the bots' peer indexed %d of its %d tanks", owner.near.n, len(owner.tanks))
	}
}
