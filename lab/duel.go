package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"text/tabwriter"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/bot"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/referee"
	"github.com/treadline/treadline/tank"
	"github.com/treadline/treadline/terrain"
)

// Defaults for DuelOptions.
const (
	// DefaultDuelShots is how many shots a duel run fires at least.
	DefaultDuelShots = 200
	// DefaultDuelMaxTime caps the simulated time of one duel run, s.
	DefaultDuelMaxTime = 3600.0
	// duelClaimCopies is how many times a shooter sends a hit claim, on consecutive
	// frames, as unreliable datagrams: one lost copy costs no retransmission delay.
	duelClaimCopies = 3
	// duelForgeRange is how close a missing shell must pass the target's hull on the
	// shooter's screen for the lab to forge a claim from it, m.
	duelForgeRange = 30.0
)

// DuelOptions is one drlab -duel invocation. The zero value takes every default.
type DuelOptions struct {
	// Network impairs each hop between a peer and the host (target to host, host to
	// shooter, shooter to host), each way.
	Network impair.Link
	// Seed drives every random draw; Runs averages over seeds Seed, Seed+1, … (if zero,
	// one run).
	Seed uint64
	Runs int
	// Shots is how many shots each run fires at least. If zero, DefaultDuelShots.
	Shots int
	// FPS is the frame rate of every peer. If zero, DefaultFPS.
	FPS float64
	// Difficulty is the shooting bot's skill.
	Difficulty bot.Difficulty
	// JSON prints the result as one JSON object.
	JSON bool
}

// DuelResult is what a duel measured. The JSON names are a contract.
type DuelResult struct {
	// LatencyS, JitterS and Loss describe each hop's impairment.
	LatencyS float64 `json:"latency_s"`
	JitterS  float64 `json:"jitter_s"`
	Loss     float64 `json:"loss"`
	Seed     uint64  `json:"seed"`
	Runs     int     `json:"runs"`
	// Shots counts the shots fired.
	Shots int `json:"shots"`
	// HitsOnScreen counts shots that hit the target as the shooter's screen showed it.
	HitsOnScreen int `json:"hits_on_screen"`
	// HitsConfirmed counts those the host accepted.
	HitsConfirmed int `json:"hits_confirmed"`
	// ConfirmRate is HitsConfirmed / HitsOnScreen.
	ConfirmRate float64 `json:"confirm_rate"`
	// FalseConfirms counts claims the host accepted for shots that missed on the
	// shooter's screen: the lab forges a claim for every miss that passed within 30 m
	// of the target, at the hull point nearest the shell's closest approach.
	FalseConfirms int `json:"false_confirms"`
	// ForgedClaims counts those forged claims.
	ForgedClaims int `json:"forged_claims"`
	// FalseConfirmMaxMiss is how far the shell passed from the hull, on the shooter's
	// screen, in the worst false confirm, m.
	FalseConfirmMaxMiss float64 `json:"false_confirm_max_miss_m"`
	// NaiveConfirmRate is the share of on-screen hits a host would accept that checks
	// the claims against its own latest view of the target (no rewind).
	NaiveConfirmRate float64 `json:"naive_confirm_rate"`
	// RejectsByReason counts the host's refusals of on-screen hits, by reason.
	RejectsByReason map[string]int `json:"rejects_by_reason"`
	// ClaimsLost counts on-screen hits none of whose claim copies reached the host.
	ClaimsLost int `json:"claims_lost"`
	// HitsTrue counts shots that struck the target's true hull.
	HitsTrue int `json:"hits_true"`
	// RebuildError is the distance between the shell and the claimed impact on the
	// host's rebuilt hull for on-screen hits, m: median, 95th percentile, largest.
	RebuildErrorP50 float64 `json:"rebuild_error_p50_m"`
	RebuildErrorP95 float64 `json:"rebuild_error_p95_m"`
	RebuildErrorMax float64 `json:"rebuild_error_max_m"`
	// SimSeconds is the simulated time, s.
	SimSeconds float64 `json:"sim_seconds"`

	rebuild []float64
}

// RunDuel runs the duel and writes its result to w, as text or JSON.
func RunDuel(ctx context.Context, w io.Writer, o DuelOptions) error {
	r, err := Duel(ctx, o)
	if err != nil {
		return err
	}
	if o.JSON {
		return json.NewEncoder(w).Encode(&r)
	}
	return writeDuel(w, r)
}

// Duel measures who-hit-whom: two tanks driven by the bot AI on the valley, one firing
// at the other. The target publishes through deadreckon.Publisher and the wire
// encoding to the host over an impaired hop; the host records what it relays
// (referee.Checker) and forwards it over another impaired hop to the shooter, whose
// deadreckon.Actor reckons and clamps the target as a match does. The shooter's shells
// fly on its screen; hits are claimed to the host, which rebuilds the shooter's view and
// judges them. Every random draw comes from the seed.
func Duel(ctx context.Context, o DuelOptions) (DuelResult, error) {
	if _, err := impair.NewPath(o.Network, 0); err != nil {
		return DuelResult{}, fmt.Errorf("duel: %w", err)
	}
	if o.Shots == 0 {
		o.Shots = DefaultDuelShots
	}
	if o.Shots < 0 || o.Shots > 1_000_000 {
		return DuelResult{}, fmt.Errorf("duel: %d shots is outside 1..1000000", o.Shots)
	}
	if o.FPS == 0 {
		o.FPS = DefaultFPS
	}
	if !(o.FPS >= 10 && o.FPS <= 1000) {
		return DuelResult{}, fmt.Errorf("duel: frame rate %v fps is outside 10..1000", o.FPS)
	}
	if o.Runs <= 0 {
		o.Runs = 1
	}
	m, err := terrain.Generate(terrain.GenerateConfig{Seed: tankMapSeed})
	if err != nil {
		return DuelResult{}, fmt.Errorf("duel map: %w", err)
	}
	total := DuelResult{LatencyS: o.Network.Latency.Seconds(), JitterS: o.Network.Jitter.Seconds(), Loss: o.Network.Loss,
		Seed: o.Seed, Runs: o.Runs, RejectsByReason: map[string]int{}}
	naive := 0
	for i := range o.Runs {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		d, err := newDuel(m, o, o.Seed+uint64(i))
		if err != nil {
			return total, err
		}
		if err := d.run(ctx); err != nil {
			return total, err
		}
		r := &d.res
		total.Shots += r.Shots
		total.HitsOnScreen += r.HitsOnScreen
		total.HitsConfirmed += r.HitsConfirmed
		total.FalseConfirms += r.FalseConfirms
		total.FalseConfirmMaxMiss = math.Max(total.FalseConfirmMaxMiss, r.FalseConfirmMaxMiss)
		total.ForgedClaims += r.ForgedClaims
		total.ClaimsLost += r.ClaimsLost
		total.HitsTrue += r.HitsTrue
		total.SimSeconds += r.SimSeconds
		total.rebuild = append(total.rebuild, r.rebuild...)
		for k, v := range r.RejectsByReason {
			total.RejectsByReason[k] += v
		}
		naive += d.naive
	}
	if total.HitsOnScreen > 0 {
		total.ConfirmRate = float64(total.HitsConfirmed) / float64(total.HitsOnScreen)
		total.NaiveConfirmRate = float64(naive) / float64(total.HitsOnScreen)
	}
	if n := len(total.rebuild); n > 0 {
		slices.Sort(total.rebuild)
		total.RebuildErrorP50 = total.rebuild[n/2]
		total.RebuildErrorP95 = total.rebuild[min(n-1, n*95/100)]
		total.RebuildErrorMax = total.rebuild[n-1]
	}
	return total, nil
}

// Actor ids in the duel.
const (
	duelShooter uint32 = 1
	duelTarget  uint32 = 2
)

// duelPost is a combat message on its way to the host.
type duelPost struct {
	arrive float64
	seq    int
	fire   bool
	shot   combat.Shot
	claim  combat.Claim
	forged bool
}

// duelShell is a shell in flight on the shooter's screen.
type duelShell struct {
	shot     combat.Shot
	last     float64 // time swept to
	trueHit  bool
	closest  float64 // closest approach to the displayed hull, m
	closeAt  float64 // frame time of it
	closeImp float64 // shell time of it
	closeLoc mgl64.Vec3
	// closeApplied is the shooter's applied updates at that frame.
	closeApplied [combat.ClaimApplied]combat.Applied
	closeObs     mgl64.Vec3
}

// duelShot is the fate of one shot.
type duelShot struct {
	onScreen bool
	forged   bool
	miss     float64 // a forged shot's closest pass on the shooter's screen, m
	judged   bool
	verdict  combat.Reason
}

type duel struct {
	o        DuelOptions
	m        *terrain.Map
	w        *physics.World
	a, b     *physics.Tank
	botA     *bot.Duelist
	botB     *bot.Duelist
	pubA     *deadreckon.Publisher
	pubB     *deadreckon.Publisher
	codec    wireCodec
	hopAH    *Network // shooter to host (states)
	hopBH    *Network // target to host
	hopHA    *Network // host to shooter
	rng      *rand.Rand
	check    *referee.Checker
	heard    map[uint32]bool     // shots whose Fire reached the host
	held     map[uint32]duelPost // claims waiting for their Fire, by shot
	view     *deadreckon.Actor   // the target on the shooter's screen
	host     *deadreckon.Actor   // the target on the host: the naive check's view
	hostA    mgl64.Vec3          // the shooter's position on the host
	reckon   deadreckon.Config
	posts    []duelPost
	seq      int
	shells   []duelShell
	shots    []duelShot
	reload   float64
	nextID   uint32
	res      DuelResult
	naive    int
	deliver  []Delivery
	applied  [combat.ClaimApplied]combat.Applied // the newest updates of the target the shooter applied
	observer mgl64.Vec3                          // where the shooter clamps the target from
}

func newDuel(m *terrain.Map, o DuelOptions, seed uint64) (*duel, error) {
	w, err := physics.NewWorld(physics.MapConfig(m))
	if err != nil {
		return nil, fmt.Errorf("duel world: %w", err)
	}
	start, ok := m.Landmark(tankStart)
	if !ok {
		return nil, fmt.Errorf("duel: map has no %q landmark", tankStart)
	}
	a, err := w.AddTank(physics.TankSpec{}, start.X, start.Z, start.Yaw)
	if err != nil {
		return nil, fmt.Errorf("duel: %w", err)
	}
	b, err := w.AddTank(physics.TankSpec{}, start.X+70, start.Z-50, start.Yaw+math.Pi)
	if err != nil {
		return nil, fmt.Errorf("duel: %w", err)
	}
	dr := game.DeadReckoning()             // what players run: publisher thresholds and remote reckoning
	dr.Reckon.Collide = physics.Collide(m) // as a match reckons its tanks on m
	reckon := dr.Reckon
	d := &duel{o: o, m: m, w: w, a: a, b: b, reckon: reckon,
		rng:   rand.New(rand.NewPCG(seed, 0xd0e1)),
		check: referee.NewChecker(m, referee.CheckerConfig{Reckon: reckon}),
		heard: map[uint32]bool{},
		held:  map[uint32]duelPost{},
		view:  deadreckon.NewActor(reckon),
		host:  deadreckon.NewActor(reckon),
		res:   DuelResult{RejectsByReason: map[string]int{}},
	}
	// Both bots keep to the middle of the valley, so they meet.
	d.botA = bot.NewDuelist(m, o.Difficulty, seed*2+1, 150)
	d.botB = bot.NewDuelist(m, o.Difficulty, seed*2+2, 150)
	d.pubA = deadreckon.NewPublisher(dr, seed*5+1)
	d.pubB = deadreckon.NewPublisher(dr, seed*5+2)
	for i, hop := range []**Network{&d.hopAH, &d.hopBH, &d.hopHA} {
		if *hop, err = NewNetwork(o.Network, seed*7+uint64(i)); err != nil {
			return nil, err
		}
	}
	for _, x := range []*deadreckon.Actor{d.view, d.host} {
		x.SetClockOffset(0) // one clock: the lab's
		x.SetClampPhase(int(duelTarget))
	}
	sa, sb := a.Pose().State(), b.Pose().State()
	d.check.Spawned(duelShooter, 1, sa, 0)
	d.check.Spawned(duelTarget, 2, sb, 0)
	if err := d.view.Break(sb, 0); err != nil {
		return nil, err
	}
	if err := d.host.Break(sb, 0); err != nil {
		return nil, err
	}
	d.hostA = sa.Position
	return d, nil
}

// delay returns a message's one-way delay on a hop; a reliable message lost once is
// retransmitted after a probe timeout (about an RTT plus four deviations).
func (d *duel) delay(reliable bool) (float64, bool) {
	lat, jitter := d.o.Network.Latency.Seconds(), d.o.Network.Jitter.Seconds()
	lossDraw, jit := d.rng.Float64(), d.rng.Float64()
	delay := math.Max(0, lat+jitter*(2*jit-1))
	if lossDraw < d.o.Network.Loss {
		if !reliable {
			return 0, false
		}
		delay += 2*lat + 4*jitter + 0.025
	}
	return delay, true
}

func (d *duel) post(p duelPost, sent float64, reliable bool) {
	dl, ok := d.delay(reliable)
	if !ok {
		return
	}
	d.seq++
	p.arrive, p.seq = sent+dl, d.seq
	d.posts = append(d.posts, p)
}

func (d *duel) run(ctx context.Context) error {
	dt := 1 / d.o.FPS
	lastShot := math.Inf(1)
	for i := 1; ; i++ {
		t := float64(i) * dt
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if (d.res.Shots >= d.o.Shots && t > lastShot+combat.ShellLifetime+1) || t > DefaultDuelMaxTime {
			d.res.SimSeconds = t
			break
		}
		d.w.Step(dt)
		pa, pb := d.a.Pose(), d.b.Pose()
		if err := d.publish(d.pubA, pa, t, d.hopAH); err != nil {
			return err
		}
		if err := d.publish(d.pubB, pb, t, d.hopBH); err != nil {
			return err
		}
		d.hostFrame(t)
		shown := d.shooterView(t, pa)
		d.sweep(t, pb, shown)
		// Drive and aim for the next frame.
		in, fire := d.botA.Input(t, pa, []bot.Target{{ID: duelTarget, Position: shown.Position, Velocity: shown.Velocity, Enemy: true}},
			t >= d.reload && d.res.Shots < d.o.Shots)
		d.a.SetInput(in)
		// The target drives as a bot and never fires: nothing is an enemy to it.
		inB, _ := d.botB.Input(t, pb, []bot.Target{{ID: duelShooter, Position: pa.Position}}, false)
		d.b.SetInput(inB)
		if fire {
			d.fire(t, pa)
			lastShot = t
		}
	}
	d.tally()
	return nil
}

// shooterView is the shooter's frame at t, its tank at pa: updates in, then the
// target reckoned and clamped as seen from the shooter. It returns the target shown.
func (d *duel) shooterView(t float64, pa physics.Pose) deadreckon.State {
	d.deliver = d.hopHA.Deliver(d.deliver[:0], t)
	for _, m := range d.deliver {
		if d.view.Receive(m.State, t) == nil { // refused updates are counted nowhere, as in a match
			copy(d.applied[1:], d.applied[:])
			d.applied[0] = combat.Applied{Update: m.State.Time, At: t}
		}
	}
	d.view.Advance(t)
	d.observer = pa.Position
	d.view.ClampTo(d.m, d.observer)
	return d.view.Reckoned()
}

// fire shoots a shell from the shooter's muzzle (its tank at pa) at t and tells the
// host, reliably.
func (d *duel) fire(t float64, pa physics.Pose) {
	origin, dir := combat.Muzzle(pa.Position, pa.Orientation, pa.Turret, pa.Gun)
	d.nextID++
	s := combat.Shot{ID: d.nextID, Shooter: duelShooter, Origin: origin, Direction: dir, Time: t}
	d.shells = append(d.shells, duelShell{shot: s, last: t, closest: math.Inf(1)})
	d.shots = append(d.shots, duelShot{})
	d.post(duelPost{fire: true, shot: s}, t, true)
	d.reload = t + combat.DefaultReload
	d.res.Shots++
}

// tally counts what became of every shot: hits on screen confirmed or refused (by
// reason) or never judged, and forged claims about misses the host confirmed.
func (d *duel) tally() {
	for _, s := range d.shots {
		switch {
		case s.onScreen && !s.judged:
			d.res.ClaimsLost++
		case s.onScreen && s.verdict == combat.Accepted:
			d.res.HitsConfirmed++
		case s.onScreen:
			d.res.RejectsByReason[s.verdict.String()]++
		case s.forged && s.judged && s.verdict == combat.Accepted:
			d.res.FalseConfirms++
			d.res.FalseConfirmMaxMiss = math.Max(d.res.FalseConfirmMaxMiss, s.miss)
		}
	}
}

// publish runs an owner's publisher on its pose and puts the update on its hop
// through the wire encoding.
func (d *duel) publish(p *deadreckon.Publisher, pose physics.Pose, t float64, hop *Network) error {
	s := deadreckon.Sample{Time: t, Position: pose.Position, Orientation: pose.Orientation}
	dec, st := p.Update(s)
	if dec == deadreckon.NoUpdate {
		return nil
	}
	st, _, err := d.codec.roundTrip(st)
	if err != nil {
		return fmt.Errorf("duel: %w", err)
	}
	hop.Send(st, false, t)
	return nil
}

// hostFrame relays the updates that reached the host and judges the combat messages
// that did.
func (d *duel) hostFrame(t float64) {
	d.deliver = d.hopBH.Deliver(d.deliver[:0], t)
	for _, m := range d.deliver {
		d.check.Relayed(duelTarget, m.State, m.Arrival)
		_ = d.host.Receive(m.State, t)
		d.hopHA.Send(m.State, false, m.Arrival)
	}
	d.deliver = d.hopAH.Deliver(d.deliver[:0], t)
	for _, m := range d.deliver {
		d.check.Relayed(duelShooter, m.State, m.Arrival)
		d.hostA = m.State.Position
	}
	d.host.Advance(t)
	d.host.ClampTo(d.m, d.hostA)
	slices.SortFunc(d.posts, func(x, y duelPost) int {
		if x.arrive != y.arrive {
			if x.arrive < y.arrive {
				return -1
			}
			return 1
		}
		return x.seq - y.seq
	})
	n := 0
	for n < len(d.posts) && d.posts[n].arrive <= t {
		p := &d.posts[n]
		n++
		if p.fire {
			d.check.Fired(p.shot, p.arrive)
			d.heard[p.shot.ID] = true
			if h, ok := d.held[p.shot.ID]; ok {
				delete(d.held, p.shot.ID)
				d.judge(&h)
			}
			continue
		}
		if !d.heard[p.claim.Shot] {
			// As the referee does: a claim that overtook its Fire waits for it and is
			// judged as of its own arrival.
			if _, ok := d.held[p.claim.Shot]; !ok {
				d.held[p.claim.Shot] = *p
			}
			continue
		}
		d.judge(p)
	}
	d.posts = append(d.posts[:0], d.posts[n:]...)
}

// judge has the host judge the claim post p.
func (d *duel) judge(p *duelPost) {
	v := d.check.Check(p.claim, p.arrive, referee.ShooterLink{Latency: d.o.Network.Latency.Seconds()})
	if v.Duplicate {
		return
	}
	s := &d.shots[p.claim.Shot-1]
	s.judged, s.verdict = true, v.Reason
	if !p.forged {
		if v.Rebuilt != (combat.HullPose{}) {
			d.res.rebuild = append(d.res.rebuild, v.Miss)
		}
		if d.naiveAccepts(p.claim) {
			d.naive++
		}
	}
}

// naiveAccepts reports whether a host that checks a claim against its own latest view
// of the target, without rebuilding the shooter's, would accept it.
func (d *duel) naiveAccepts(c combat.Claim) bool {
	r := d.host.Reckoned()
	world := r.Position.Add(r.Orientation.Rotate(c.Local))
	return world.Sub(c.Fired.At(c.Impact)).Len() <= d.check.Config().Tolerance
}

// sweep moves the shooter's shells on to frame time t against the target as shown and
// as it truly is, and claims hits.
func (d *duel) sweep(t float64, truth physics.Pose, shown deadreckon.State) {
	observer := d.observer
	onScreen := []combat.HullPose{{Actor: duelTarget, Position: shown.Position, Orientation: shown.Orientation}}
	real := []combat.HullPose{{Actor: duelTarget, Position: truth.Position, Orientation: truth.Orientation}}
	live := d.shells[:0]
	for _, sh := range d.shells {
		imp := combat.Sweep(d.m, sh.shot, sh.last, t, onScreen)
		end := t
		if imp.Kind != combat.ImpactNone {
			end = imp.Time
		}
		if !sh.trueHit {
			if ti := combat.Sweep(d.m, sh.shot, sh.last, end, real); ti.Kind == combat.ImpactTank {
				sh.trueHit = true
				d.res.HitsTrue++
			}
		}
		d.closest(&sh, t, end, onScreen[0])
		sh.last = t
		s := &d.shots[sh.shot.ID-1]
		switch imp.Kind {
		case combat.ImpactNone:
			live = append(live, sh)
			continue
		case combat.ImpactTank:
			s.onScreen = true
			d.res.HitsOnScreen++
			c := combat.Claim{Shooter: duelShooter, Shot: sh.shot.ID, Target: duelTarget, Time: t, Impact: imp.Time,
				Local: imp.Local, Fired: sh.shot, Observer: observer, Reckon: combat.ModeOf(d.reckon)}
			c.Applied = d.applied
			for k := range duelClaimCopies {
				d.post(duelPost{claim: c}, t+float64(k)/d.o.FPS, false)
			}
		default:
			if sh.closest <= duelForgeRange {
				s.forged, s.miss = true, sh.closest
				d.res.ForgedClaims++
				c := combat.Claim{Shooter: duelShooter, Shot: sh.shot.ID, Target: duelTarget, Time: sh.closeAt,
					Impact: sh.closeImp, Local: sh.closeLoc, Fired: sh.shot, Observer: sh.closeObs, Reckon: combat.ModeOf(d.reckon)}
				c.Applied = sh.closeApplied
				for k := range duelClaimCopies {
					d.post(duelPost{claim: c, forged: true}, t+float64(k)/d.o.FPS, false)
				}
			}
		}
	}
	d.shells = live
}

// closest tracks a shell's closest approach to the displayed hull over the stretch
// from its last sweep to end, sampled finely: the point a cheat would claim.
func (d *duel) closest(sh *duelShell, frame, end float64, hp combat.HullPose) {
	const samples = 16
	inv := hp.Orientation.Conjugate()
	spec := tank.Default()
	hullMin, hullMax := spec.HullMin(), spec.HullMax()
	for k := 1; k <= samples; k++ {
		ts := sh.last + (end-sh.last)*float64(k)/samples
		local := inv.Rotate(sh.shot.At(ts).Sub(hp.Position))
		var on mgl64.Vec3
		for i := range 3 {
			on[i] = math.Max(hullMin[i], math.Min(hullMax[i], local[i]))
		}
		if dist := local.Sub(on).Len(); dist < sh.closest {
			sh.closest, sh.closeAt, sh.closeImp, sh.closeLoc = dist, frame, ts, on
			sh.closeApplied, sh.closeObs = d.applied, d.observer
		}
	}
}

func writeDuel(w io.Writer, r DuelResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "duel\t%.0f ms ± %.0f ms, %.1f%% loss each hop, seed %d, %d run(s), %.0f s simulated\n",
		r.LatencyS*1000, r.JitterS*1000, r.Loss*100, r.Seed, r.Runs, r.SimSeconds)
	fmt.Fprintf(tw, "shots\t%d\n", r.Shots)
	fmt.Fprintf(tw, "hits on screen\t%d\t(hits on the true hull: %d)\n", r.HitsOnScreen, r.HitsTrue)
	fmt.Fprintf(tw, "hits confirmed\t%d\tconfirm rate %.3f\n", r.HitsConfirmed, r.ConfirmRate)
	fmt.Fprintf(tw, "naive host\t\tconfirm rate %.3f\n", r.NaiveConfirmRate)
	fmt.Fprintf(tw, "forged claims\t%d\tfalse confirms %d (shell at most %.3f m off the hull)\n", r.ForgedClaims, r.FalseConfirms, r.FalseConfirmMaxMiss)
	fmt.Fprintf(tw, "claims lost\t%d\n", r.ClaimsLost)
	fmt.Fprintf(tw, "rebuild error\tp50 %.3f m\tp95 %.3f m\tmax %.3f m\n", r.RebuildErrorP50, r.RebuildErrorP95, r.RebuildErrorMax)
	keys := make([]string, 0, len(r.RejectsByReason))
	for k := range r.RejectsByReason {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(tw, "rejected: %s\t%d\n", k, r.RejectsByReason[k])
	}
	return tw.Flush()
}
