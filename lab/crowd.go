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
	"github.com/treadline/treadline/assets/maps"
	"github.com/treadline/treadline/bot"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/grid"
	"github.com/treadline/treadline/internal/units"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/terrain"
)

// Defaults and limits for CrowdOptions.
const (
	// DefaultCrowdObservers is how many players' views a crowd run reckons and
	// measures.
	DefaultCrowdObservers = 32
	// DefaultCrowdDuration is how long a crowd run lasts, s.
	DefaultCrowdDuration = 60.0
	// MaxCrowd is the most tanks a crowd holds: a match's limit (game.MaxTanks).
	MaxCrowd = 512
	// crowdMap is the map a crowd drives on: the 2 km one made for large matches.
	crowdMap = "expanse"
	// crowdWarmup is how long after the start nothing is measured, s: every player
	// learns of every tank's spawn at once, and the reckoning has nothing to go on.
	crowdWarmup = 5.0
	// crowdMeasure is how often each measured observer's view is measured, s.
	crowdMeasure = 0.1
	// crowdNear is the distance within which a tank counts as near, m; crowdInterest
	// the one within which its state's age is watched (the host's promise, m).
	crowdNear     = 100.0
	crowdInterest = 300.0
	// crowdAgeSettle is how long a tank must have been within crowdInterest of an
	// observer before its state's age counts, s: the host learns that it came in
	// (or that the observer respawned beside it) at its next coarse tick, and what
	// it then sends takes a latency; until then the observer shows what it was sent
	// of a far tank. The host's tests hold it to the same (net's
	// TestZonesBudgetAndFloor).
	crowdAgeSettle = 1.0
	// crowdWreckEvery is each tank's mean time between wrecks, s: a wreck despawns the
	// tank and spawns it again elsewhere, two events every player must hear of.
	crowdWreckEvery = 120.0
	// crowdSettle is how long before the end an event must be sent to count as lost
	// when it has not arrived, s: the reliable stream's worst delay, and more.
	crowdSettle = 3.0
	// Screen and camera: the client's window (render.DefaultFovY, the chase camera's
	// defaults), for the error on screen.
	crowdScreenW, crowdScreenH = 1280, 720
	crowdFovY                  = math.Pi / 3
	crowdChaseDistance         = 16.0
	crowdChasePitch            = 0.26
	crowdChaseLookHeight       = 2.5
	crowdChaseLookAhead        = 8.0
	crowdCameraNear            = 0.5
	crowdCameraFar             = 2000.0
)

// CrowdOptions is one drlab -crowd invocation. The zero value takes every default
// but Tanks.
type CrowdOptions struct {
	// Tanks is how many tanks drive in the match, 2..MaxCrowd.
	Tanks int
	// Network impairs every player's uplink and downlink, each way.
	Network impair.Link
	// Duration is how long each run lasts, s; if zero, DefaultCrowdDuration.
	Duration float64
	// Seed drives every random draw; Runs pools runs of seeds Seed, Seed+1, … (if
	// zero, one run).
	Seed uint64
	Runs int
	// Observers is how many players' views are measured, spread over the map; if
	// zero, DefaultCrowdObservers (all the tanks when fewer).
	Observers int
	// FPS is the frame rate of the simulation and of every player; if zero,
	// DefaultFPS.
	FPS float64
	// Downlink is each player's downlink budget, bytes/s (net.Limits.Downlink): zero
	// the host's default, negative everything to everyone.
	Downlink int
	// JSON prints the result as one JSON object.
	JSON bool
}

// CrowdResult is what a crowd run measured over its measured observers, after a
// warm-up of 5 s. The JSON names are a contract.
type CrowdResult struct {
	Tanks     int     `json:"tanks"`
	Observers int     `json:"observers"`
	LatencyS  float64 `json:"latency_s"`
	JitterS   float64 `json:"jitter_s"`
	Loss      float64 `json:"loss"`
	LossBurst float64 `json:"loss_burst"`
	Seed      uint64  `json:"seed"`
	Runs      int     `json:"runs"`
	// DurationS is each run's simulated time, s.
	DurationS float64 `json:"duration_s"`
	// DownlinkBudgetKBps is each player's budget, kB/s (0: everything to everyone).
	DownlinkBudgetKBps float64 `json:"downlink_budget_kBps"`
	// Downlink is the state datagrams' payload the host sent each observer, per
	// whole second, kB/s: 95th percentile and largest over every observer's seconds;
	// DownlinkControlKBps the reliable stream's mean (spawns, despawns).
	DownlinkKBpsP95     float64 `json:"downlink_kBps_p95"`
	DownlinkKBpsMax     float64 `json:"downlink_kBps_max"`
	DownlinkControlKBps float64 `json:"downlink_control_kBps"`
	// NearP95ErrM is the 95th percentile of the distance between where an observer
	// shows a tank within 100 m of it and where the tank is, m; FarP95ErrM the same
	// for the tanks farther away.
	NearP95ErrM float64 `json:"near_p95_err_m"`
	FarP95ErrM  float64 `json:"far_p95_err_m"`
	// P95ErrPx is the 95th percentile of that error on the observer's screen, pixels:
	// both points projected at 1280 × 720 with the client's field of view from its
	// chase camera, for the tanks inside the view.
	P95ErrPx float64 `json:"p95_err_px"`
	// MaxStateAgeS is the oldest state an observer showed of a tank within 300 m of
	// it: now less the time of the newest state it received of the tank, s.
	MaxStateAgeS float64 `json:"max_state_age_s"`
	// MaxSettledStateAgeS is MaxStateAgeS over the tanks that have been within 300 m
	// of the observer for a second (crowdAgeSettle), as the host's tests count it:
	// it leaves out the moments after a tank comes near, or the observer respawns
	// beside it, when the observer still shows what it was sent of a far tank.
	MaxSettledStateAgeS float64 `json:"max_settled_state_age_s"`
	// Events counts the spawns and despawns sent to the measured observers (settled
	// before the end), and EventsLost those that never reached one.
	Events     int `json:"events"`
	EventsLost int `json:"events_lost"`
	// UpdatesPerTankS is how many updates a tank published a second, on average.
	UpdatesPerTankS float64 `json:"updates_per_tank_s"`
	// Samples counts the error samples: near, far, on screen.
	NearSamples   int `json:"near_samples"`
	FarSamples    int `json:"far_samples"`
	ScreenSamples int `json:"screen_samples"`
}

// RunCrowd runs the crowd and writes its result to w, as text or JSON.
func RunCrowd(ctx context.Context, w io.Writer, o CrowdOptions) error {
	r, err := Crowd(ctx, o)
	if err != nil {
		return err
	}
	if o.JSON {
		return json.NewEncoder(w).Encode(&r)
	}
	return writeCrowd(w, r)
}

// Crowd runs a large match through an offline net host: Tanks tanks driven by the
// game's bots on the expanse map, each publishing with the game's publisher over its
// own impaired uplink to the host, whose acceptance, subscription zones and downlink
// scheduler decide what every player is sent. A sample of the players, spread over
// the map, receive theirs over impaired downlinks and reckon and clamp every tank as
// the game does; what they show is measured against the truth. Every random draw
// comes from the seed.
func Crowd(ctx context.Context, o CrowdOptions) (CrowdResult, error) {
	if o.Tanks < 2 || o.Tanks > MaxCrowd {
		return CrowdResult{}, fmt.Errorf("crowd: %d tanks is outside 2..%d", o.Tanks, MaxCrowd)
	}
	if _, err := impair.NewPath(o.Network, 0); err != nil {
		return CrowdResult{}, fmt.Errorf("crowd: %w", err)
	}
	if o.Duration == 0 {
		o.Duration = DefaultCrowdDuration
	}
	if !(o.Duration > crowdWarmup+1 && o.Duration <= 3600) {
		return CrowdResult{}, fmt.Errorf("crowd: duration %v s is outside (%v s, 1 h]", o.Duration, crowdWarmup+1)
	}
	if o.FPS == 0 {
		o.FPS = DefaultFPS
	}
	if !(o.FPS >= 10 && o.FPS <= 1000) {
		return CrowdResult{}, fmt.Errorf("crowd: frame rate %v fps is outside 10..1000", o.FPS)
	}
	if o.Observers == 0 {
		o.Observers = DefaultCrowdObservers
	}
	if o.Observers < 1 {
		return CrowdResult{}, fmt.Errorf("crowd: %d observers is below 1", o.Observers)
	}
	o.Observers = min(o.Observers, o.Tanks)
	if o.Runs <= 0 {
		o.Runs = 1
	}
	m, err := maps.Library{}.Load(crowdMap)
	if err != nil {
		return CrowdResult{}, fmt.Errorf("crowd: %w", err)
	}
	res := CrowdResult{Tanks: o.Tanks, Observers: o.Observers, LatencyS: o.Network.Latency.Seconds(),
		JitterS: o.Network.Jitter.Seconds(), Loss: o.Network.Loss, LossBurst: o.Network.LossBurst,
		Seed: o.Seed, Runs: o.Runs, DurationS: o.Duration}
	var acc crowdTally
	for i := range o.Runs {
		c, err := newCrowd(m, o, o.Seed+uint64(i))
		if err != nil {
			return res, err
		}
		if err := c.run(ctx); err != nil {
			return res, err
		}
		acc.merge(&c.tally)
		if b, on := c.host.Downlink(); on {
			res.DownlinkBudgetKBps = b / 1000
		}
	}
	acc.result(&res, o)
	return res, nil
}

// crowdTank is one tank of the crowd: its physics, bot, publisher and uplink.
type crowdTank struct {
	player uint32
	actor  uint32
	team   int
	body   *physics.Tank
	pose   physics.Pose
	drv    *bot.Driver
	pub    *deadreckon.Publisher
	up     *impair.Path
	seq    uint16
	wreck  float64 // time of its next wreck, s
	obs    *crowdObserver
	// zoned is what its player last heard of the host's downlink scheduler
	// (wire.Zones): it publishes by game.ZonedPublishing, as a match does; news
	// holds what is on its way down the reliable stream.
	zoned bool
	news  []crowdZones
	hear  func([]byte) // c.hear on it, for an unmeasured player's control frames
}

// crowdZones is the host's word on its scheduler, arriving at a player at a time, s.
type crowdZones struct {
	at float64
	on bool
}

// crowdObserver is a measured player: what it received and shows.
type crowdObserver struct {
	t       *crowdTank
	down    *impair.Path
	ctrlAt  float64 // arrival of the latest control frame: the stream is in order
	inbox   eventQueue[crowdMsg]
	seen    map[uint32]*crowdView // by actor id
	events  map[uint64]float64    // events sent to it and not yet arrived: key → sent at
	second  int                   // the whole second being counted
	bytes   int                   // datagram payload in it
	seconds []float64             // kB/s of each whole second after the warm-up
	ctrl    int                   // control bytes after the warm-up
}

// crowdView is one tank as an observer shows it.
type crowdView struct {
	actor  *deadreckon.Actor
	newest float64 // time of the newest state received, s
	inside float64 // when it was last found within crowdInterest of the observer, having been outside, s; −1 while outside
}

// crowdMsg is a datagram or control frame on its way down to an observer.
type crowdMsg struct {
	at     float64
	seq    uint64
	data   []byte
	ctrl   bool
	player uint32 // the sender, on an uplink
}

// before orders crowd messages by arrival, then by send order.
func (m crowdMsg) before(o crowdMsg) bool {
	if m.at != o.at {
		return m.at < o.at
	}
	return m.seq < o.seq
}

// crowdTally gathers the measures of one or more runs.
type crowdTally struct {
	near, far, px        histogram
	maxAge, maxSettled   float64
	seconds              []float64
	ctrlBytes            int
	obsSeconds           float64
	events, lost         int
	published, tankSecs  float64
	nearN, farN, screenN int
}

func (t *crowdTally) merge(o *crowdTally) {
	t.near.merge(&o.near)
	t.far.merge(&o.far)
	t.px.merge(&o.px)
	t.maxAge = math.Max(t.maxAge, o.maxAge)
	t.maxSettled = math.Max(t.maxSettled, o.maxSettled)
	t.seconds = append(t.seconds, o.seconds...)
	t.ctrlBytes += o.ctrlBytes
	t.obsSeconds += o.obsSeconds
	t.events += o.events
	t.lost += o.lost
	t.published += o.published
	t.tankSecs += o.tankSecs
	t.nearN += o.nearN
	t.farN += o.farN
	t.screenN += o.screenN
}

func (t *crowdTally) result(r *CrowdResult, o CrowdOptions) {
	r.NearP95ErrM = t.near.quantile(0.95)
	r.FarP95ErrM = t.far.quantile(0.95)
	r.P95ErrPx = t.px.quantile(0.95)
	r.MaxStateAgeS, r.MaxSettledStateAgeS = t.maxAge, t.maxSettled
	if n := len(t.seconds); n > 0 {
		s := slices.Clone(t.seconds)
		slices.Sort(s)
		r.DownlinkKBpsP95 = s[min(n-1, int(math.Ceil(0.95*float64(n)))-1)]
		r.DownlinkKBpsMax = s[n-1]
	}
	if t.obsSeconds > 0 {
		r.DownlinkControlKBps = float64(t.ctrlBytes) / t.obsSeconds / 1000
	}
	r.Events, r.EventsLost = t.events, t.lost
	if t.tankSecs > 0 {
		r.UpdatesPerTankS = t.published / t.tankSecs
	}
	r.NearSamples, r.FarSamples, r.ScreenSamples = t.nearN, t.farN, t.screenN
}

// histogram counts samples in bins of a fixed width, for quantiles of millions of
// samples without keeping them; samples past the last bin are kept as they are.
type histogram struct {
	width float64
	bins  []uint64
	over  []float64
	n     uint64
}

func newHistogram(width, top float64) histogram {
	return histogram{width: width, bins: make([]uint64, int(math.Ceil(top/width)))}
}

func (h *histogram) add(v float64) {
	h.n++
	i := int(v / h.width)
	if i >= 0 && i < len(h.bins) {
		h.bins[i]++
		return
	}
	h.over = append(h.over, v)
}

func (h *histogram) merge(o *histogram) {
	if h.bins == nil {
		h.width, h.bins = o.width, make([]uint64, len(o.bins))
	}
	for i, c := range o.bins {
		h.bins[i] += c
	}
	h.over = append(h.over, o.over...)
	h.n += o.n
}

// quantile returns the q-quantile, to the bin's upper edge; 0 with no samples.
func (h *histogram) quantile(q float64) float64 {
	if h.n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	rank = max(rank, 1)
	var c uint64
	for i, b := range h.bins {
		c += b
		if c >= rank {
			return float64(i+1) * h.width
		}
	}
	over := slices.Clone(h.over)
	slices.Sort(over)
	return over[min(len(over)-1, int(rank-c)-1)]
}

// crowd is one run.
type crowd struct {
	o      CrowdOptions
	m      *terrain.Map
	w      *physics.World
	rng    *rand.Rand
	host   *net.Offline
	tanks  []*crowdTank
	obs    []*crowdObserver
	byID   map[uint32]*crowdTank // by actor id
	where  *grid.Grid[*crowdTank]
	near   []*crowdTank
	others []mgl64.Vec3
	dr     deadreckon.PublisherConfig
	ext    float64
	bw     *wire.BatchWriter
	uplink eventQueue[crowdMsg] // datagrams on their way to the host
	seq    uint64
	now    float64
	sent   []float64 // when each event to a measured observer was sent
	tally  crowdTally
}

func newCrowd(m *terrain.Map, o CrowdOptions, seed uint64) (*crowd, error) {
	w, err := physics.NewWorld(physics.MapConfig(m))
	if err != nil {
		return nil, fmt.Errorf("crowd world: %w", err)
	}
	lo, hi := m.Min(), m.Max()
	ext := math.Max(math.Max(-lo[0], -lo[1]), math.Max(hi[0], hi[1]))
	host, err := net.NewOffline(net.HostConfig{Limits: net.Limits{Downlink: o.Downlink, MaxPlayers: MaxCrowd},
		Match: net.MatchSettings{Map: crowdMap, Extent: ext}})
	if err != nil {
		return nil, fmt.Errorf("crowd: %w", err)
	}
	dr := game.DeadReckoning()
	dr.Reckon.Collide = physics.Collide(m)
	c := &crowd{o: o, m: m, w: w, rng: rand.New(rand.NewPCG(seed, 0xc0ad)), host: host, dr: dr, ext: ext,
		byID: map[uint32]*crowdTank{}, where: grid.New[*crowdTank](100), bw: wire.NewBatchWriter(wire.MaxBatchSize),
		tally: crowdTally{near: newHistogram(0.001, 20), far: newHistogram(0.001, 50), px: newHistogram(0.01, 200)}}
	for i := range o.Tanks {
		id, err := host.Join(fmt.Sprintf("crowd%03d", i), 0)
		if err != nil {
			return nil, fmt.Errorf("crowd: %w", err)
		}
		up, err := impair.NewPath(o.Network, seed*1_000_003+uint64(i)*2)
		if err != nil {
			return nil, err
		}
		t := &crowdTank{player: id, team: 1 + i%2, up: up,
			drv: bot.NewDriver(bot.Config{Map: m, Seed: seed ^ (uint64(i)+1)*0x632be59bd9b4e019}),
			pub: deadreckon.NewPublisher(dr, seed^(uint64(i)+1)*0x2545f4914f6cdd1d)}
		t.hear = func(b []byte) { c.hear(t, b) }
		c.tanks = append(c.tanks, t)
	}
	// The measured observers: every k'th player, whose tanks land all over the map.
	for k := range o.Observers {
		t := c.tanks[k*o.Tanks/o.Observers]
		down, err := impair.NewPath(o.Network, seed*1_000_003+uint64(k)*2+1+uint64(o.Tanks)*2)
		if err != nil {
			return nil, err
		}
		t.obs = &crowdObserver{t: t, down: down, seen: map[uint32]*crowdView{}, events: map[uint64]float64{}}
		c.obs = append(c.obs, t.obs)
	}
	for _, t := range c.tanks {
		if err := c.spawn(t); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// spawn places t somewhere on the map, clear of rocks and tanks, and enters it.
func (c *crowd) spawn(t *crowdTank) error {
	var err error
	for range 200 {
		x := (c.rng.Float64()*2 - 1) * c.ext * 0.9
		z := (c.rng.Float64()*2 - 1) * c.ext * 0.9
		yaw := c.rng.Float64() * 2 * math.Pi
		if t.body, err = c.w.AddTank(physics.TankSpec{}, x, z, yaw); err == nil {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("crowd: no room for a tank: %w", err)
	}
	t.pose = t.body.Pose()
	t.pub = deadreckon.NewPublisher(game.ZonedPublishing(c.dr, t.zoned), c.rng.Uint64())
	t.wreck = c.now + c.rng.ExpFloat64()*crowdWreckEvery
	at := units.Duration(c.now)
	id, err := c.host.Spawn(t.player, fmt.Sprintf("crowd%03d", t.player), t.team, t.pose.State(), at)
	if err != nil {
		return fmt.Errorf("crowd: %w", err)
	}
	t.actor = id
	c.byID[id] = t
	c.where.Move(t, t.pose.Position[0], t.pose.Position[2])
	c.expect(uint64(id) << 1)
	return nil
}

// wreck despawns t and spawns it again elsewhere.
func (c *crowd) wreck(t *crowdTank) error {
	if err := c.host.Despawn(t.player, t.actor, units.Duration(c.now)); err != nil {
		return fmt.Errorf("crowd: %w", err)
	}
	c.expect(uint64(t.actor)<<1 | 1)
	delete(c.byID, t.actor)
	c.where.Remove(t)
	c.w.RemoveTank(t.body)
	return c.spawn(t)
}

// expect records that event key (an actor's spawn, or its despawn with the low bit
// set) was sent now to every measured observer.
func (c *crowd) expect(key uint64) {
	for _, ob := range c.obs {
		ob.events[key] = c.now
		c.sent = append(c.sent, c.now)
	}
}

func (c *crowd) run(ctx context.Context) error {
	dt := 1 / c.o.FPS
	measureEvery := max(1, int(math.Round(crowdMeasure*c.o.FPS)))
	frames := int(math.Round(c.o.Duration * c.o.FPS))
	for i := 1; i <= frames; i++ {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		c.now = float64(i) * dt
		c.w.Step(dt)
		for _, t := range c.tanks {
			if c.now >= t.wreck {
				if err := c.wreck(t); err != nil {
					return err
				}
			}
		}
		if err := c.publish(); err != nil {
			return err
		}
		at := units.Duration(c.now)
		c.host.Step(at)
		for _, t := range c.tanks {
			if t.obs != nil {
				c.receive(t.obs)
			} else {
				c.host.Take(t.player, nil, t.hear)
			}
		}
		if i%measureEvery == 0 && c.now >= crowdWarmup {
			for _, ob := range c.obs {
				c.measure(ob)
			}
		}
		c.drive()
	}
	c.finish()
	return nil
}

// publish samples every tank, runs its publisher and puts what it publishes on its
// uplink; then hands the host what arrived.
func (c *crowd) publish() error {
	for _, t := range c.tanks {
		t.pose = t.body.Pose()
		c.where.Move(t, t.pose.Position[0], t.pose.Position[2])
	}
	for _, t := range c.tanks {
		for len(t.news) > 0 && t.news[0].at <= c.now+arrivalEpsilon {
			if err := c.zones(t, t.news[0].on); err != nil {
				return err
			}
			t.news = t.news[1:]
		}
		s := t.pose.Sample()
		s.Time = c.now
		s.ObserverDistance = c.nearest(t)
		dec, st := t.pub.Update(s)
		if dec == deadreckon.NoUpdate {
			continue
		}
		c.tally.published++
		t.seq++
		c.bw.Reset()
		if err := c.bw.Add(&wire.Update{Actor: wire.ActorID(t.actor), Seq: t.seq, State: st}); err != nil {
			return fmt.Errorf("crowd: encode: %w", err)
		}
		d := t.up.Send(units.Duration(c.now))
		if d.Lost {
			continue
		}
		c.seq++
		c.uplink.push(crowdMsg{at: d.At.Seconds(), seq: c.seq, data: slices.Clone(c.bw.Bytes()), ctrl: false, player: t.player})
	}
	for len(c.uplink) > 0 && c.uplink[0].at <= c.now+arrivalEpsilon {
		msg := c.uplink.pop()
		c.host.Datagram(msg.player, msg.data, units.Duration(msg.at))
	}
	return nil
}

// hear takes a control frame the host sent t's unmeasured player: the host's word
// on its scheduler arrives one latency later (the reliable stream's delay without
// loss); what else the frame says, no one measures.
func (c *crowd) hear(t *crowdTank, b []byte) {
	if len(b) < 4 || wire.MsgType(b[3]) != wire.MsgZones { // past the frame's length and the version
		return
	}
	if msg, _, err := wire.Parse(b[2:]); err == nil {
		t.news = append(t.news, crowdZones{at: c.now + c.o.Network.Latency.Seconds(), on: msg.(*wire.Zones).On})
	}
}

// zones applies the host's word on its scheduler at t's publisher, as a match
// applies it to its local tanks.
func (c *crowd) zones(t *crowdTank, on bool) error {
	t.zoned = on
	if err := t.pub.SetHeartbeatCopy(game.ZonedPublishing(c.dr, on).HeartbeatCopy); err != nil {
		return fmt.Errorf("crowd: %w", err)
	}
	return nil
}

// nearest returns the distance from t to the nearest other tank, m, as the game's
// publisher is told (0 when it is alone within the search).
func (c *crowd) nearest(t *crowdTank) float64 {
	p := t.pose.Position
	for r := 100.0; r <= 4*c.ext; r *= 2 {
		c.near = c.where.AppendNear(c.near[:0], p[0], p[2], r)
		best := math.Inf(1)
		for _, u := range c.near {
			if u != t {
				best = math.Min(best, u.pose.Position.Sub(p).Len())
			}
		}
		clear(c.near)
		if best <= r {
			return best
		}
	}
	return 0
}

// drive has every bot choose its input for the next frame, aware of the tanks
// within its sight.
func (c *crowd) drive() {
	for _, t := range c.tanks {
		p := t.pose.Position
		c.near = c.where.AppendNear(c.near[:0], p[0], p[2], t.drv.Sight())
		// By actor id: the grid's cells hold their tanks in no set order.
		slices.SortFunc(c.near, func(a, b *crowdTank) int { return int(a.actor) - int(b.actor) })
		c.others = c.others[:0]
		for _, u := range c.near {
			c.others = append(c.others, u.pose.Position)
		}
		clear(c.near)
		t.body.SetInput(t.drv.Drive(c.now, t.pose, c.others))
	}
}

// receive takes what the host queued for ob's player, puts it on ob's downlink, and
// applies what arrived by now.
func (c *crowd) receive(ob *crowdObserver) {
	warm := c.now >= crowdWarmup
	if s := int(c.now); s != ob.second {
		if warm && ob.second >= int(math.Ceil(crowdWarmup)) {
			ob.seconds = append(ob.seconds, float64(ob.bytes)/1000)
		}
		ob.second, ob.bytes = s, 0
	}
	c.host.Take(ob.t.player, func(b []byte) {
		ob.bytes += len(b)
		d := ob.down.Send(units.Duration(c.now))
		if d.Lost {
			return
		}
		c.seq++
		ob.inbox.push(crowdMsg{at: d.At.Seconds(), seq: c.seq, data: slices.Clone(b)})
	}, func(b []byte) {
		if warm {
			ob.ctrl += len(b)
		}
		// The reliable stream: a lost packet comes again after a probe timeout, and
		// what follows it waits (in order).
		d := ob.down.Send(units.Duration(c.now))
		at := c.now + c.o.Network.Latency.Seconds()
		if d.Lost {
			at += 3*c.o.Network.Latency.Seconds() + 4*c.o.Network.Jitter.Seconds() + 0.025
		} else {
			at = d.At.Seconds()
		}
		ob.ctrlAt = math.Max(ob.ctrlAt, at)
		c.seq++
		ob.inbox.push(crowdMsg{at: ob.ctrlAt, seq: c.seq, data: slices.Clone(b), ctrl: true})
	})
	for len(ob.inbox) > 0 && ob.inbox[0].at <= c.now+arrivalEpsilon {
		msg := ob.inbox.pop()
		if msg.ctrl {
			c.control(ob, msg.data)
			continue
		}
		r, err := wire.ReadBatch(msg.data)
		if err != nil {
			continue
		}
		var u wire.Update
		for r.Next(&u) {
			v := ob.seen[uint32(u.Actor)]
			if v == nil {
				continue // its spawn is still on the way
			}
			if u.State.Time <= v.newest {
				// A copy of one it has (the host sends a record again when its first
				// copy may have been lost), or an older one: the client's sequence
				// window drops it.
				continue
			}
			// Refused updates (older than one applied) are counted nowhere, as in a match.
			if v.actor.Receive(u.State, c.now) == nil {
				v.newest = math.Max(v.newest, u.State.Time)
			}
		}
	}
}

// control applies a control frame at ob: a spawn starts a view of the tank (not of
// ob's own), a despawn ends it; both settle an expected event.
func (c *crowd) control(ob *crowdObserver, b []byte) {
	if len(b) < 2 {
		return
	}
	msg, _, err := wire.Parse(b[2:]) // past the frame's length
	if err != nil {
		return
	}
	switch msg := msg.(type) {
	case *wire.Spawn:
		id := uint32(msg.Actor)
		delete(ob.events, uint64(id)<<1)
		if t := c.byID[id]; t == nil || t == ob.t {
			return
		}
		a := deadreckon.NewActor(c.dr.Reckon)
		a.SetClockOffset(0) // one clock: the lab's
		a.SetClampPhase(int(id))
		if a.Break(msg.State, c.now) != nil {
			return
		}
		ob.seen[id] = &crowdView{actor: a, newest: msg.State.Time, inside: -1}
	case *wire.Despawn:
		id := uint32(msg.Actor)
		delete(ob.events, uint64(id)<<1|1)
		delete(ob.seen, id)
	case *wire.Zones:
		ob.t.news = append(ob.t.news, crowdZones{at: c.now, on: msg.On})
	}
}

// measure compares what ob shows of every tank it knows with the truth.
func (c *crowd) measure(ob *crowdObserver) {
	me := ob.t.pose
	eye, fwd, right, up := chaseCamera(me)
	f := 1 / math.Tan(crowdFovY/2)
	aspect := float64(crowdScreenW) / float64(crowdScreenH)
	project := func(p mgl64.Vec3) (float64, float64, bool) {
		d := p.Sub(eye)
		depth := d.Dot(fwd)
		if depth < crowdCameraNear || depth > crowdCameraFar {
			return 0, 0, false
		}
		x := (f/aspect*d.Dot(right)/depth + 1) / 2 * crowdScreenW
		y := (1 - f*d.Dot(up)/depth) / 2 * crowdScreenH
		return x, y, true
	}
	for id, v := range ob.seen {
		t := c.byID[id]
		if t == nil {
			continue // despawned here, its despawn on the way
		}
		// The client sweeps a tank against the rocks only near its camera: where
		// it was shown last, before this frame's reckoning, as game.Match chooses.
		game.ChooseSweep(v.actor, v.actor.Reckoned().Position.Sub(eye).Len())
		v.actor.Advance(c.now)
		v.actor.ClampTo(c.m, me.Position)
		shown := v.actor.Reckoned().Position
		truth := t.pose.Position
		err := shown.Sub(truth).Len()
		dist := planarDist(truth, me.Position)
		if dist <= crowdNear {
			c.tally.near.add(err)
			c.tally.nearN++
		} else {
			c.tally.far.add(err)
			c.tally.farN++
		}
		if dist <= crowdInterest {
			c.tally.maxAge = math.Max(c.tally.maxAge, c.now-v.newest)
		}
		switch {
		case dist > crowdInterest:
			v.inside = -1
		case v.inside < 0:
			v.inside = c.now
		case c.now-v.inside >= crowdAgeSettle-arrivalEpsilon:
			c.tally.maxSettled = math.Max(c.tally.maxSettled, c.now-v.newest)
		}
		tx, ty, ok := project(truth)
		if !ok || tx < 0 || tx > crowdScreenW || ty < 0 || ty > crowdScreenH {
			continue
		}
		if sx, sy, ok := project(shown); ok {
			c.tally.px.add(math.Hypot(sx-tx, sy-ty))
			c.tally.screenN++
		}
	}
}

// chaseCamera returns the eye and the axes of the client's chase camera behind a
// tank at pose p, looking where its turret points (the camera follows the aim).
func chaseCamera(p physics.Pose) (eye, fwd, right, up mgl64.Vec3) {
	yaw := p.Yaw + p.Turret
	ahead := mgl64.Vec3{math.Cos(yaw), 0, -math.Sin(yaw)}
	pivot := p.Position.Add(mgl64.Vec3{0, crowdChaseLookHeight, 0})
	look := pivot.Add(ahead.Mul(crowdChaseLookAhead))
	eye = pivot.Sub(ahead.Mul(crowdChaseDistance * math.Cos(crowdChasePitch))).
		Add(mgl64.Vec3{0, crowdChaseDistance * math.Sin(crowdChasePitch), 0})
	fwd = look.Sub(eye).Normalize()
	right = fwd.Cross(mgl64.Vec3{0, 1, 0}).Normalize()
	up = right.Cross(fwd)
	return eye, fwd, right, up
}

func planarDist(a, b mgl64.Vec3) float64 { return math.Hypot(a[0]-b[0], a[2]-b[2]) }

// finish tallies the run: events sent long enough before the end and never
// received are lost.
func (c *crowd) finish() {
	for _, ob := range c.obs {
		for _, sent := range ob.events {
			if sent <= c.now-crowdSettle {
				c.tally.lost++
			}
		}
		c.tally.seconds = append(c.tally.seconds, ob.seconds...)
		c.tally.ctrlBytes += ob.ctrl
		c.tally.obsSeconds += c.now - crowdWarmup
	}
	for _, at := range c.sent {
		if at <= c.now-crowdSettle {
			c.tally.events++
		}
	}
	c.tally.tankSecs += c.now * float64(len(c.tanks))
}

func writeCrowd(w io.Writer, r CrowdResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "crowd\t%d tanks, %d measured observers, %.0f ms ± %.0f ms, %.1f%% loss each way, seed %d, %d run(s) of %.0f s\n",
		r.Tanks, r.Observers, r.LatencyS*1000, r.JitterS*1000, r.Loss*100, r.Seed, r.Runs, r.DurationS)
	fmt.Fprintf(tw, "downlink\tp95 %.1f kB/s\tmax %.1f kB/s\tbudget %.1f kB/s\tcontrol %.2f kB/s\n",
		r.DownlinkKBpsP95, r.DownlinkKBpsMax, r.DownlinkBudgetKBps, r.DownlinkControlKBps)
	fmt.Fprintf(tw, "error near (≤ 100 m)\tp95 %.3f m\t%d samples\n", r.NearP95ErrM, r.NearSamples)
	fmt.Fprintf(tw, "error far\tp95 %.3f m\t%d samples\n", r.FarP95ErrM, r.FarSamples)
	fmt.Fprintf(tw, "error on screen\tp95 %.2f px\t%d samples\n", r.P95ErrPx, r.ScreenSamples)
	fmt.Fprintf(tw, "oldest state within 300 m\t%.2f s (%.2f s for tanks near for a second)\n", r.MaxStateAgeS, r.MaxSettledStateAgeS)
	fmt.Fprintf(tw, "events\t%d\tlost %d\n", r.Events, r.EventsLost)
	fmt.Fprintf(tw, "published\t%.2f updates/s per tank\n", r.UpdatesPerTankS)
	return tw.Flush()
}
