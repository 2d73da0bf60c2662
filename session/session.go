package session

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/treadline/treadline/assets/maps"
	"github.com/treadline/treadline/bot"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/disgate"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/units"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/record"
	"github.com/treadline/treadline/referee"
	"github.com/treadline/treadline/tank"
	"github.com/treadline/treadline/terrain"
)

// Defaults for the session constructors.
const (
	// DefaultMapName is the map a host runs unless told otherwise.
	DefaultMapName = maps.Default
	// DefaultPracticeBots is how many bots a practice match has.
	DefaultPracticeBots = 7
	// DefaultPracticeLag is the one-way latency added each way on the practice link.
	DefaultPracticeLag = 100 * time.Millisecond
	// DefaultPracticeJitter is the jitter added each way on the practice link.
	DefaultPracticeJitter = 20 * time.Millisecond
	// DefaultPracticeLoss is the packet loss each way on the practice link.
	DefaultPracticeLoss = 0.02
	// DefaultHostTickRate is the rate of a host's bot loop, ticks per second.
	DefaultHostTickRate = 30.0
	// DefaultStatsEvery is how often a headless host logs its figures.
	DefaultStatsEvery = 10 * time.Second
)

// inProcessTimeout is the silence after which a practice match's host and player
// would give each other up. Both run in this process, so a stall (a loaded machine, a
// debugger, a suspended laptop) starves them together and is never the other's fault:
// neither is ever declared lost in a practice match.
const inProcessTimeout = 24 * time.Hour

// Session holds what a practice, hosted or joined match runs on: the sockets, the
// in-process host and its bots' loop. Close it when the match ends.
type Session struct {
	// Addr is the address other players join (practice and host), host:port.
	Addr string
	// Fingerprint is the host certificate's SHA-256, hex, for "-join Addr#Fingerprint".
	Fingerprint string
	// Host is the host a hosted match runs on (Host only), for its counters.
	Host *net.Host
	// Recent keeps the last seconds of the player's view of the match in memory, for
	// the kill camera (package replay's ReadRing); nil unless Recording.Recent asked.
	Recent *record.Ring

	rec     *recorder // the match's recording, nil without
	once    sync.Once
	closers []func() error
	err     error
	clock   *PauseClock // a practice's clock, which Pause stops; nil: it cannot pause
}

// Pause stops the whole match (on) or lets it go on (off), and reports whether it
// can: only a practice started with a PracticeConfig.Clock, where the player is
// alone with bots, pauses for real.
func (s *Session) Pause(on bool) bool {
	if s == nil || s.clock == nil {
		return false
	}
	s.clock.Pause(on)
	return true
}

// Close stops the session's loops and closes its links and sockets, in reverse order
// of creation. It is safe to call more than once; later calls return the first result.
func (s *Session) Close() error {
	s.once.Do(func() {
		var errs []error
		for i := len(s.closers) - 1; i >= 0; i-- {
			if err := s.closers[i](); err != nil {
				errs = append(errs, err)
			}
		}
		s.err = errors.Join(errs...)
	})
	return s.err
}

func (s *Session) add(f func() error) { s.closers = append(s.closers, f) }

// closeMatch returns a closer that stops m's reckoning goroutines (game.Match.Close):
// the session closes after the last Step.
func closeMatch(m *game.Match) func() error { return func() error { m.Close(); return nil } }

// wrapFor returns the net.WrapConn that impairs a client's socket by link both ways
// over under (if set), or under alone for an unimpaired link.
func wrapFor(under net.WrapConn, link impair.Link, seed uint64) net.WrapConn {
	if !link.Active() {
		return under
	}
	return net.Chain(under, net.Impaired(link, seed))
}

// Off turns off the features of this package's configs whose fields say they may be
// Off: a practice's bots, a headless host's figures in the log. Zero never means off:
// a zero field takes its default.
const Off = -1

// PracticeConfig sets up a practice match. The zero value is the default practice:
// DefaultPracticeBots bots on the valley map behind a link impaired by
// DefaultPracticeLag, DefaultPracticeJitter and DefaultPracticeLoss.
type PracticeConfig struct {
	// Match configures the player's match (name, team, algorithm, clamp, seed…).
	// Match.Bots is ignored: the bots run on the in-process host. If Match.Map is nil,
	// DefaultMapName is loaded from MapDir or the built-in maps.
	Match game.Config
	// MapDir, if set, is searched for maps before the maps built into the program
	// (package assets/maps).
	MapDir string
	// Bots is how many bots the host runs. If zero, defaults to DefaultPracticeBots;
	// Off runs none.
	Bots int
	// Impairment is added to the player's link each way. If nil, defaults to
	// DefaultPracticeLag, DefaultPracticeJitter and DefaultPracticeLoss; a zero Link
	// leaves the link unimpaired.
	Impairment *impair.Link
	// TickRate is the host's bot loop rate, ticks per second. If zero, defaults to
	// DefaultHostTickRate.
	TickRate float64
	// Logger receives session and match log lines. If nil, nothing is logged.
	Logger *slog.Logger
	// Clock, if set, is the clock of the host, the bots and the player's match:
	// Session.Pause stops it. If nil, the system's clock, and the match cannot pause.
	Clock *PauseClock
	// Record, when set, records the player's view of the match with the truth of
	// the player's tank and of the bots (tanks -record).
	Record Recording
	// Wrap, if set, wraps the host's and the player's UDP sockets, under the
	// player's Impairment: tests put the match on an in-memory network with it.
	Wrap net.WrapConn
}

// PracticeTeam is the player's team in practice. The bots take teams 1 and 2 in
// turn, team 1 first, so the player's team 2 has as many tanks as team 1 with an odd
// number of bots (the default), one fewer with an even number.
const PracticeTeam = 2

// PracticeTeams returns how many bots fight beside the player and against them in a
// practice with bots bots.
func PracticeTeams(bots int) (friends, enemies int) { return bots / 2, bots - bots/2 }

// Practice starts a practice match at once: an in-process host on a random loopback
// port running the bots in its own goroutine, and the player joining it over QUIC
// through the impairment wrapper, so every other tank the player sees is really
// dead-reckoned from network updates. The caller steps the returned match and closes
// the session when done.
func Practice(ctx context.Context, cfg PracticeConfig) (*game.Match, *Session, error) {
	log := orDiscard(cfg.Logger)
	mp, err := mapFor(cfg.Match.Map, maps.Library.Load, cfg.MapDir, DefaultMapName)
	if err != nil {
		return nil, nil, fmt.Errorf("practice: %w", err)
	}
	bots := cfg.Bots
	switch {
	case bots == 0:
		bots = DefaultPracticeBots
	case bots == Off:
		bots = 0
	case bots < 0:
		return nil, nil, fmt.Errorf("practice: bot count %d: want Off, zero (the default) or a positive count", bots)
	}
	imp := impair.Link{Latency: DefaultPracticeLag, Jitter: DefaultPracticeJitter, Loss: DefaultPracticeLoss}
	if cfg.Impairment != nil {
		imp = *cfg.Impairment
	}

	sess := &Session{}
	rc := newRecorder(cfg.Record, recordMeta(record.Client, mp, cfg.Match.DeadReckoning, combat.Rules{}, orName(cfg.Match.Name), 0, imp),
		warnRecording(log))
	sess.add(rc.close)
	var shift float64 // client clock minus host clock, set before the recording starts
	hc, _, err := hostNetConfig("127.0.0.1:0", "", "practice", mp, net.Limits{}, combat.Rules{}, log)
	if err != nil {
		return nil, nil, fmt.Errorf("practice: %w", err)
	}
	hc.Limits.Timeout = inProcessTimeout
	hc.Wrap = cfg.Wrap
	hc.Limits.IdleKick = net.Off // the player is never kicked from their own practice
	hc.Tap = rc.uplinkTap(func() float64 { return shift })
	if cfg.Clock != nil {
		hc.Clock = cfg.Clock
		sess.clock = cfg.Clock
	}
	host, err := net.Listen(ctx, hc)
	if err != nil {
		return nil, nil, fmt.Errorf("practice: listen: %w", err)
	}
	sess.add(host.Close)
	sess.Addr, sess.Fingerprint = host.Addr().String(), host.Fingerprint()

	botCfg := cfg.Match
	botCfg.Map, botCfg.NoPlayer, botCfg.Bots = mp, true, bots
	botCfg.Seed = cfg.Match.Seed + 1
	botCfg.Logger = log.With("match", "host")
	botCfg.Observer = observer(rc.truthTap(true, func() float64 { return shift }))
	if err := startLoop(sess, botCfg, host.Local(), cfg.TickRate, log); err != nil {
		sess.Close()
		return nil, nil, fmt.Errorf("practice: %w", err)
	}

	client, err := net.Dial(ctx, net.ClientConfig{
		Addr: sess.Addr, Fingerprint: sess.Fingerprint, KnownHosts: "-",
		Name: orName(cfg.Match.Name), Wrap: wrapFor(cfg.Wrap, imp, cfg.Match.Seed+2), Logger: log,
		Timeout: inProcessTimeout, Clock: hc.Clock,
	})
	if err != nil {
		sess.Close()
		return nil, nil, fmt.Errorf("practice: join: %w", err)
	}
	sess.add(client.Close)
	if rc != nil {
		shift = client.Now() - host.Now() // both count from this process's clock
		rc.setPlayer(client.ID())
		rc.start()
	}
	pc := cfg.Match
	pc.Map, pc.Bots, pc.Impairment = mp, 0, imp
	pc.Team = PracticeTeam
	pc.Observer = rc.viewTap()
	sess.Recent, sess.rec = rc.recent(), rc
	if pc.Logger == nil {
		pc.Logger = log
	}
	m, err := game.NewMatch(pc, client)
	if err != nil {
		sess.Close()
		return nil, nil, fmt.Errorf("practice: %w", err)
	}
	sess.add(closeMatch(m))
	return m, sess, nil
}

// HostConfig sets up a hosted match the host also plays in.
type HostConfig struct {
	// Addr is the UDP address to listen on. If empty, defaults to net.DefaultHostAddr.
	Addr string
	// Passphrase, when set, must be proven by joining players.
	Passphrase string
	// Match configures the host player's match; Match.Bots bots run beside the
	// player. If Match.Map is nil, MapName is loaded.
	Match game.Config
	// MapName names the map: a name, found in MapDir or among the maps built into the
	// program (package assets/maps), or a path to a sidecar file NAME.json
	// (maps.Library.Open). If empty, defaults to DefaultMapName.
	MapName string
	// MapDir, if set, is searched for maps before the built-in ones.
	MapDir string
	// Limits are the host's defences; zero fields take their defaults.
	Limits net.Limits
	// Certificate is the host's identity (net.LoadIdentity). If nil, a fresh one is
	// made, and the fingerprint changes at every start.
	Certificate *tls.Certificate
	// Logger receives session and match log lines. If nil, nothing is logged.
	Logger *slog.Logger
	// Record, when set, records the match as the host sees it, with the truth of the
	// host player's tank and bots.
	Record Recording
	// DIS, when set, is the DIS gateway (tanks -host ADDR -dis ADDR:PORT), as
	// ServeConfig.DIS. The session closes it.
	DIS *disgate.Gateway
	// Wrap, if set, wraps the host's UDP socket: tests put the match on an
	// in-memory network with it.
	Wrap net.WrapConn
}

// Host listens for players and returns the host player's match: the player's tank and
// Match.Bots bots, all local to this peer and published to the joiners.
func Host(ctx context.Context, cfg HostConfig) (*game.Match, *Session, error) {
	log := orDiscard(cfg.Logger)
	mp, err := mapFor(cfg.Match.Map, maps.Library.Open, cfg.MapDir, cfg.MapName)
	if err != nil {
		return nil, nil, fmt.Errorf("host: %w", err)
	}
	hc, ref, err := hostNetConfig(cfg.Addr, cfg.Passphrase, orName(cfg.Match.Name), mp, cfg.Limits, combat.Rules{}, log)
	if err != nil {
		return nil, nil, fmt.Errorf("host: %w", err)
	}
	hc.Certificate, hc.Wrap = cfg.Certificate, cfg.Wrap
	if cfg.DIS != nil {
		hc.Judge = newDISJudge(ref, cfg.DIS)
	}
	rc := newRecorder(cfg.Record, recordMeta(record.Host, mp, cfg.Match.DeadReckoning, combat.Rules{}, orName(cfg.Match.Name), 0, impair.Link{}),
		warnRecording(log))
	hc.Tap = rc.hostTap()
	rc.start()
	host, err := net.Listen(ctx, hc)
	if err != nil {
		rc.close()
		return nil, nil, fmt.Errorf("host: %w", err)
	}
	sess := &Session{Addr: host.Addr().String(), Fingerprint: host.Fingerprint(), Host: host}
	sess.add(rc.close)
	sess.add(host.Close)
	if cfg.DIS != nil {
		sess.add(cfg.DIS.Close)
		dctx, stop := context.WithCancel(ctx)
		sess.add(func() error { stop(); return nil })
		if err := startDIS(dctx, cfg.DIS, host, mp, func(err error) { log.Warn("dis gateway", "err", err) }); err != nil {
			sess.Close()
			return nil, nil, fmt.Errorf("host: %w", err)
		}
		log.Info("dis gateway", "addr", cfg.DIS.Addr())
	}
	mc := cfg.Match
	mc.Map = mp
	mc.Observer = observer(rc.truthTap(false, nil), rc.ringTap())
	sess.Recent, sess.rec = rc.recent(), rc
	if mc.Logger == nil {
		mc.Logger = log
	}
	m, err := game.NewMatch(mc, host.Local())
	if err != nil {
		sess.Close()
		return nil, nil, fmt.Errorf("host: %w", err)
	}
	sess.add(closeMatch(m))
	log.Info("hosting", "addr", sess.Addr, "fingerprint", sess.Fingerprint, "map", mp.Name())
	return m, sess, nil
}

// JoinConfig sets up a joined match.
type JoinConfig struct {
	// Addr is the host's address, optionally pinned: "host:port#fingerprint".
	Addr string
	// Passphrase proves the right to join a protected match.
	Passphrase string
	// KnownHosts is the trust-on-first-use file for unpinned joins. If empty,
	// defaults to net.DefaultKnownHostsPath().
	KnownHosts string
	// Remember, with Addr pinned, also remembers the fingerprint in KnownHosts (and
	// refuses another one remembered there), as for a match found on the local
	// network (net.ClientConfig.Remember).
	Remember bool
	// Impairment is added to this client's link each way (-lag, -jitter, -loss).
	Impairment impair.Link
	// Match configures the player's match. If Match.Map is nil, the map the host
	// names is loaded from MapDir or the built-in maps, by name only.
	Match game.Config
	// MapDir, if set, is searched for maps before the maps built into the program
	// (package assets/maps).
	MapDir string
	// Logger receives session and match log lines. If nil, nothing is logged.
	Logger *slog.Logger
	// Record, when set, records the player's view of the match with the truth of the
	// player's tank.
	Record Recording
	// Progress, if set, is told each step of the join as it begins, on Join's
	// goroutine: for a window that shows the join while it runs.
	Progress func(JoinStep)
	// Wrap, if set, wraps the client's UDP socket, under the Impairment: tests put
	// the match on an in-memory network with it.
	Wrap net.WrapConn
}

// JoinStep is a step of Join, as JoinConfig.Progress tells it.
type JoinStep uint8

// The steps of a join, in order.
const (
	// JoinHandshake: the QUIC handshake with the host (the host's certificate is
	// checked).
	JoinHandshake JoinStep = iota
	// JoinAdmission: the host's challenge, the passphrase and the admission.
	JoinAdmission
	// JoinSpawn: the host's map is loaded and the host places the player's tank.
	JoinSpawn
)

// Join connects to a host and returns the player's match.
func Join(ctx context.Context, cfg JoinConfig) (*game.Match, *Session, error) {
	log := orDiscard(cfg.Logger)
	addr, pin, err := net.SplitJoin(cfg.Addr)
	if err != nil {
		return nil, nil, err
	}
	progress := func(JoinStep) {}
	if cfg.Progress != nil {
		progress = cfg.Progress
	}
	progress(JoinHandshake)
	client, err := net.Dial(ctx, net.ClientConfig{
		Addr: addr, Fingerprint: pin, KnownHosts: cfg.KnownHosts, Remember: cfg.Remember,
		Name: orName(cfg.Match.Name), Passphrase: cfg.Passphrase, Observe: cfg.Match.Observe,
		Wrap: wrapFor(cfg.Wrap, cfg.Impairment, cfg.Match.Seed+2), Logger: log,
		OnHandshake: func() { progress(JoinAdmission) },
	})
	if err != nil {
		return nil, nil, err // a *net.JoinError, which names the address
	}
	sess := &Session{Addr: addr, Fingerprint: client.Fingerprint()}
	sess.add(client.Close)
	settings := client.Match()
	mp, err := mapFor(cfg.Match.Map, maps.Library.Load, cfg.MapDir, settings.Map)
	if err != nil {
		sess.Close()
		return nil, nil, fmt.Errorf("join: %w", err)
	}
	if e := mapExtent(mp); math.Abs(e-settings.Extent) > 1 {
		sess.Close()
		return nil, nil, fmt.Errorf("join: map %q here spans ±%.0f m, the host's ±%.0f m: not the same map", mp.Name(), e, settings.Extent)
	}
	mc := cfg.Match
	mc.Map, mc.Impairment = mp, cfg.Impairment
	if mc.Logger == nil {
		mc.Logger = log
	}
	rc := newRecorder(cfg.Record, recordMeta(record.Client, mp, mc.DeadReckoning, combat.Rules{}, orName(mc.Name), client.ID(), cfg.Impairment),
		warnRecording(log))
	rc.start()
	sess.add(rc.close)
	mc.Observer = rc.viewTap()
	sess.Recent, sess.rec = rc.recent(), rc
	progress(JoinSpawn)
	m, err := game.NewMatch(mc, client)
	if err != nil {
		sess.Close()
		return nil, nil, fmt.Errorf("join: %w", err)
	}
	sess.add(closeMatch(m))
	return m, sess, nil
}

// ServeConfig sets up a headless host.
type ServeConfig struct {
	// Addr is the UDP address to listen on. If empty, defaults to net.DefaultHostAddr.
	Addr string
	// Passphrase, when set, must be proven by joining players.
	Passphrase string
	// Bots is how many bots the host runs.
	Bots int
	// Patrol is the share of the bots (0 to 1) that patrol routes of their own and
	// publish by path (game.Config.Patrol); zero patrols none.
	Patrol float64
	// Map is the battlefield. If nil, MapName is loaded.
	Map *terrain.Map
	// MapName names the map: a name, found in MapDir or among the maps built into the
	// program (package assets/maps), or a path to a sidecar file NAME.json
	// (maps.Library.Open). If empty, defaults to DefaultMapName.
	MapName string
	// MapDir, if set, is searched for maps before the built-in ones.
	MapDir string
	// Seed makes the bots deterministic.
	Seed uint64
	// Difficulty is how well the bots shoot.
	Difficulty bot.Difficulty
	// TickRate is the bot loop rate, ticks per second. If zero, defaults to
	// DefaultHostTickRate.
	TickRate float64
	// StatsEvery is how often the host logs its figures. If zero, defaults to
	// DefaultStatsEvery; Off (or any negative): never.
	StatsEvery time.Duration
	// Certificate is the host's identity (net.LoadIdentity). If nil, a fresh one is
	// made, and the fingerprint changes at every start.
	Certificate *tls.Certificate
	// Ready, if set, is called once the host listens, with its address and
	// certificate fingerprint.
	Ready func(addr, fingerprint string)
	// Limits are the host's defences; zero fields take their defaults.
	Limits net.Limits
	// Logger receives log lines. If nil, nothing is logged.
	Logger *slog.Logger
	// IdleTimeout ends the match once it has been without players this long after
	// someone played; a match nobody has joined yet waits. Zero: never.
	IdleTimeout time.Duration
	// Rounds ends the match once this many combat rounds have ended (each at the
	// rules' score or time limit). Zero: round after round, until ctx ends.
	Rounds int
	// Rules are the rules of combat the host referees (a round's length is
	// Rules.TimeLimit). The zero value takes every default.
	Rules combat.Rules
	// RoundStart, if set, holds the round clock until the first player joins or
	// RoundStart is closed (an allocation, say), whichever comes first: until then no
	// round counts towards Rounds, and the first round starts afresh at that moment.
	// A channel never closed holds it until the first join. Nil: the clock runs from
	// the start.
	RoundStart <-chan struct{}
	// Listening, if set, is called once the host listens, before the first step,
	// with the host (for its counters and players).
	Listening func(*net.Host)
	// Tick, if set, is called from the match loop after every step, so a loop that
	// stalls stops calling it. It must not block. The last call reports MatchEnded
	// when the match ends by its rules; Serve then returns nil.
	Tick func(ServeStatus)
	// Record, when set, records every match the host serves (tankhost -record DIR:
	// one file per match), with the truth of its bots.
	Record Recording
	// DIS, when set, is the DIS gateway (tankhost -dis): every tank the host hears of
	// goes out through it as DIS PDUs, and the entities of other DIS simulations come
	// into the match through it as an in-process player's tanks. Serve closes it.
	DIS *disgate.Gateway
	// Wrap, if set, wraps the host's UDP socket (net.HostConfig.Wrap): tests put
	// the served match on an in-memory network, in a synctest bubble.
	Wrap net.WrapConn
}

// Serve runs a headless host until ctx is canceled: it listens, runs cfg.Bots bots
// through a Match on the host's local peer, relays every player's tanks, and logs its
// figures. It returns nil after a clean stop on cancellation.
func Serve(ctx context.Context, cfg ServeConfig) error {
	log := orDiscard(cfg.Logger)
	mp, err := mapFor(cfg.Map, maps.Library.Open, cfg.MapDir, cfg.MapName)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	hcfg, judge, err := hostNetConfig(cfg.Addr, cfg.Passphrase, "host", mp, cfg.Limits, cfg.Rules, log)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	hcfg.Certificate, hcfg.Wrap = cfg.Certificate, cfg.Wrap
	if cfg.DIS != nil {
		defer cfg.DIS.Close()
		hcfg.Judge = newDISJudge(judge, cfg.DIS)
	}
	rc := newRecorder(cfg.Record, recordMeta(record.Host, mp, deadreckon.PublisherConfig{}, cfg.Rules, "host", 0, impair.Link{}),
		warnRecording(log))
	hcfg.Tap = rc.hostTap()
	rc.start()
	defer rc.close()
	host, err := net.Listen(ctx, hcfg)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer host.Close()
	addr, fp := host.Addr().String(), host.Fingerprint()
	m, err := game.NewMatch(game.Config{Map: mp, NoPlayer: true, Bots: cfg.Bots, Patrol: cfg.Patrol, Seed: cfg.Seed, Difficulty: cfg.Difficulty, Logger: log,
		Observer: observer(rc.truthTap(false, nil))}, host.Local())
	if err != nil {
		if ctx.Err() != nil {
			return nil // canceled while the bots joined: the host closed under them
		}
		return fmt.Errorf("serve: %w", err)
	}
	defer m.Close()
	// Said once the bots are in: a player who joins on this line finds them.
	log.Info("listening", "addr", addr, "fingerprint", fp, "map", mp.Name(), "bots", cfg.Bots,
		"join", "tanks -join "+host.JoinAddress())
	if cfg.DIS != nil {
		if err := startDIS(ctx, cfg.DIS, host, mp, func(err error) { log.Warn("dis gateway", "err", err) }); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("serve: %w", err)
		}
		log.Info("dis gateway", "addr", cfg.DIS.Addr())
	}
	if cfg.Listening != nil {
		cfg.Listening(host)
	}
	if cfg.Ready != nil {
		cfg.Ready(addr, fp)
	}
	every := cfg.StatsEvery
	if every == 0 {
		every = DefaultStatsEvery
	}
	var stats <-chan time.Time
	if every > 0 {
		t := time.NewTicker(every)
		defer t.Stop()
		stats = t.C
	}
	rules := matchRules{idleTimeout: cfg.IdleTimeout, rounds: cfg.Rounds, held: cfg.RoundStart != nil}
	afterStep := func(now time.Time) bool {
		players := host.Stats().Players - 1
		if rules.start(players, closed(cfg.RoundStart)) {
			judge.StartRound()
			log.Info("round started", "players", players)
		}
		st := rules.step(now, players, judge.Rounds())
		if cfg.Tick != nil {
			cfg.Tick(st)
		}
		if st.State == MatchEnded {
			log.Info("match ended", "reason", st.Reason)
			return false
		}
		return true
	}
	err = loop(ctx, m, cfg.TickRate, afterStep, stats, func() {
		hs := host.Stats()
		log.Info("host", "players", hs.Players, "observers", hs.Observers, "actors", hs.Actors,
			"accepted", hs.Accepted, "relayed", hs.Relayed, "relay_per_s", round1(hs.RelayRate),
			"late", hs.Late, "rate_limited", hs.RateLimited, "invalid", hs.Invalid,
			"unauthorized", hs.Unauthorized, "malformed", hs.Malformed, "refused", hs.Refused,
			"timed_out", hs.TimedOut)
	})
	log.Info("stopping")
	return err
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// closed reports whether ch is closed (a nil channel never is).
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// loop steps m at rate ticks per second until ctx ends or afterStep, if set, returns
// false (nil), or the match fails. afterStep gets the tick's time; onStats runs on
// each tick of stats.
func loop(ctx context.Context, m *game.Match, rate float64, afterStep func(time.Time) bool, stats <-chan time.Time, onStats func()) error {
	if !(rate > 0) {
		rate = DefaultHostTickRate
	}
	tick := time.NewTicker(units.Duration(1 / rate))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-stats:
			onStats()
		case now := <-tick.C:
			if err := m.Step(m.Now(), physics.Input{}); err != nil {
				if ctx.Err() != nil {
					return nil // the host closed because ctx ended: a clean stop
				}
				return err
			}
			if afterStep != nil && !afterStep(now) {
				return nil
			}
		}
	}
}

// startLoop creates the bots' match on link and steps it in a goroutine until the
// session closes.
func startLoop(sess *Session, cfg game.Config, link game.Link, rate float64, log *slog.Logger) error {
	m, err := game.NewMatch(cfg, link)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer m.Close()
		if err := loop(ctx, m, rate, nil, nil, nil); err != nil {
			if _, normal := game.Explain(err, ""); !normal {
				log.Warn("host loop stopped", "err", err)
			}
		}
	}()
	sess.add(func() error { cancel(); <-done; return nil })
	return nil
}

// hostNetConfig is the net configuration of a host for map mp, with limits (the
// host's own peer runs its bots beyond the per-player cap, which bounds remote
// players), and its referee, refereeing under rules. It returns an error for invalid
// rules.
func hostNetConfig(addr, pass, name string, mp *terrain.Map, limits net.Limits, rules combat.Rules, log *slog.Logger) (net.HostConfig, *referee.Referee, error) {
	ref, err := referee.New(mp, rules, game.DeadReckoning().Reckon)
	if err != nil {
		return net.HostConfig{}, nil, err
	}
	// A player who asks for no team (a joiner's default) plays on the smaller one.
	ref.AssignTeams()
	if limits.RespawnInterval == 0 {
		// An honest tank respawns at most once per wreck time: the host paces remote
		// players' spawns by the rules it referees.
		r, err := rules.WithDefaults()
		if err != nil {
			return net.HostConfig{}, nil, err
		}
		limits.RespawnInterval = units.Duration(r.WreckTime)
	}
	return net.HostConfig{
		Addr: addr, Passphrase: pass, Name: name, Logger: log, Limits: limits,
		Match: net.MatchSettings{Map: mp.Name(), Extent: mapExtent(mp)},
		Judge: ref, Mover: referee.NewMover(tank.Spec{}, mp.SurfaceAt),
	}, ref, nil
}

// mapExtent is the half-width of the square around the origin that holds mp, m.
func mapExtent(mp *terrain.Map) float64 {
	lo, hi := mp.Min(), mp.Max()
	return math.Max(math.Max(-lo[0], -lo[1]), math.Max(hi[0], hi[1]))
}

// mapFor returns m, if set, or the map name names (if empty, DefaultMapName), loaded
// by load (maps.Library's Load, for a name only, or Open, for a name or a path) from
// dir, if set, or the built-in maps.
func mapFor(m *terrain.Map, load func(maps.Library, string) (*terrain.Map, error), dir, name string) (*terrain.Map, error) {
	if m != nil {
		return m, nil
	}
	if name == "" {
		name = DefaultMapName
	}
	return load(maps.Library{Dirs: []string{dir}}, name)
}

func orDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}

func orName(n string) string {
	if n == "" {
		return game.DefaultName
	}
	return n
}
