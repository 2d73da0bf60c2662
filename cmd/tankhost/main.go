// Command tankhost runs a headless Treadline host: it listens for players, runs bots
// through a match on the host's own peer, relays every player's tanks, logs with slog,
// and stops cleanly on SIGINT or SIGTERM. It needs no display and no cgo.
//
//	tankhost -listen :7777 [-pass secret] [-bots 4] [-map valley|dunes|expanse|FILE.json] [-maps DIR]
//	         [-metrics :9100] [-agones [-self-allocate] [-agones-health 2s]] [-idle 2m]
//	         [-rounds 1] [-round-time 10m] [-identity FILE] [-new-identity] [-record DIR]
//	         [-lan all|off|IFACE,…] [-list URL[,URL…]]
//	         [-dis ADDR:PORT [-dis-origin LAT,LON[,ALT]] [-dis-exercise 1] [-dis-site 1] [-dis-app 1]]
//
// With -dis it is a DIS (IEEE 1278.1) gateway (docs/dis.md): every tank goes out as
// Entity State PDUs to ADDR:PORT (unicast, broadcast or a multicast group, joined on
// loopback too), one per accepted update and a heartbeat every 5 s, dead reckoned
// with DRM(R,V,W), and the entities of other DIS simulations in the exercise come
// into the match as tanks named by their marking and tagged [DIS], until 12 s of
// silence or a Remove Entity PDU. The map's origin lies at -dis-origin (default
// 36.6° N, 121.9° W), X east, −Z north.
//
// The host announces its match on the local network (DNS-SD, _treadline._udp; -lan
// picks the interfaces, off for none; a fleet's game server does not announce unless
// told), where "tanks -list" and the Join menu find it, and with -list registers it
// with list servers (tanklist), which check that it answers at its address before
// they list it; a fleet's game server registers its public address.
//
// The host keeps its key and certificate in host-identity.pem in the user's config
// directory (or the file -identity names), so its fingerprint survives restarts and
// players who trusted it once can join again; -new-identity replaces it. A game
// server (-agones) keeps none unless -identity names a file: its identity lives as
// long as its pod, and the fingerprint reaches players through the allocation.
//
// The round clock starts when the first player joins, or with -agones when the game
// server is allocated, whichever comes first: a host nobody has come to plays no
// round, however long it waits. A round lasts -round-time.
//
// With -record DIR it records every match it serves into DIR, one file each
// (RECORDING.md): what it accepted and relayed, with arrival times, and its bots' true
// poses; a full disk is logged once and the match goes on.
//
// With -metrics it serves Prometheus metrics (treadline_… and the standard go_… and
// process_…) at /metrics and a liveness check at /healthz. With -agones it is an Agones
// game server: it talks to the SDK sidecar on 127.0.0.1:$AGONES_SDK_HTTP_PORT (see
// deploy/agones).
//
// Flags such as -max-handshakes, -retry-above, -max-joining-per-prefix, -idle-kick
// and -mem-limit tune the host's defences (docs/security.md).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/treadline/treadline/assets/maps"
	"github.com/treadline/treadline/bot"
	"github.com/treadline/treadline/cmd/internal/cli"
	"github.com/treadline/treadline/cmd/tankhost/internal/agones"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/disgate"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/units"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/session"
)

// DefaultListen is the address tankhost listens on unless -listen says otherwise.
const DefaultListen = ":7777"

// DefaultPatrol is the share of the bots that patrol routes unless -patrol says
// otherwise: every second bot, whose route and progress cost a fraction of the bytes
// of the states a roaming bot publishes (docs/network.md), the others roaming as
// before.
const DefaultPatrol = 0.5

func main() {
	cli.Main("tankhost", func(ctx context.Context, args []string, _, stderr io.Writer) error {
		return run(ctx, args, stderr, runOptions{})
	})
}

// runOptions are run's hooks for tests.
type runOptions struct {
	// ready, if set, is called with the address and fingerprint once the host listens.
	ready func(addr, fp string)
	// tick, if set, is called from the match loop after every step (a test that
	// blocks in it stalls the loop).
	tick func(session.ServeStatus)
	// metrics, if set, is called with the metrics listener's address.
	metrics func(addr string)
	// getenv, if set, stands in for os.Getenv.
	getenv func(string) string
	// wrap, if set, wraps the host's UDP socket (session.ServeConfig.Wrap): tests
	// put the host on an in-memory network, in a synctest bubble.
	wrap net.WrapConn
}

// flags are tankhost's command line.
type flags struct {
	serve        session.ServeConfig
	level        slog.Level
	metrics      string
	agones       bool
	selfAllocate bool
	healthEvery  time.Duration
	roundTime    time.Duration
	idleSet      bool
	roundsSet    bool
	mapArg       string // -map: a name or a sidecar file
	mapsDir      string // -maps
	find         *cli.Findable
	lists        string // -list URL[,URL…]
	name         string // -name: the match's name in the lists; "": matchName's
	defences     net.DefenceFlags
	identity     *cli.Identity
	dis          disFlags
}

func parseFlags(args []string, stderr io.Writer) (flags, error) {
	fs := cli.NewFlagSet("tankhost", stderr)
	var f flags
	cfg := &f.serve
	fs.StringVar(&cfg.Addr, "listen", DefaultListen, "UDP `address` to listen on")
	fs.StringVar(&cfg.Passphrase, "pass", "", "`passphrase` players must know to join (empty: open)")
	fs.IntVar(&cfg.Bots, "bots", 4, fmt.Sprintf("number of computer-driven tanks, 0..%d", game.MaxBots))
	fs.Float64Var(&cfg.Patrol, "patrol", DefaultPatrol, "`share` of the bots, 0 to 1, that patrol routes of their own, publishing each route once and then their progress along it")
	fs.StringVar(&f.mapArg, "map", session.DefaultMapName, "the map to host, by `name` (built in: "+
		strings.Join(maps.Library{}.Names(), ", ")+"; or one in -maps) or as a sidecar file NAME.json")
	fs.StringVar(&f.mapsDir, "maps", "", "`directory` of more maps, searched before the built-in ones")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed for the bots")
	fs.TextVar(&cfg.Difficulty, "difficulty", bot.Normal, "how well the bots shoot: easy, normal or hard")
	fs.Float64Var(&cfg.TickRate, "tick", session.DefaultHostTickRate, "bot simulation `rate`, ticks per second, up to 240")
	fs.DurationVar(&cfg.StatsEvery, "stats", session.DefaultStatsEvery, "how often to log figures (negative: never)")
	fs.DurationVar(&cfg.IdleTimeout, "idle", 0, "end the match after this long with no players, once someone has played (0: never; with -agones "+DefaultFleetIdle.String()+")")
	fs.IntVar(&cfg.Rounds, "rounds", 0, "end the match after this many combat rounds, each ended by the score or time limit (0: play on; with -agones 1)")
	fs.DurationVar(&f.roundTime, "round-time", 0, "length of a combat round (0: "+units.Duration(combat.DefaultTimeLimit).String()+"); the first starts at the first join or allocation")
	fs.TextVar(&f.level, "log-level", slog.LevelInfo, "log `level`: debug, info, warn or error")
	fs.StringVar(&cfg.Record.Dir, "record", "", "record every match into `DIR`, one file each (tanks -replay FILE watches one, drlab -replay FILE measures it)")
	fs.StringVar(&f.dis.addr, "dis", "", "be a DIS gateway: send the match's tanks as DIS PDUs to UDP `ADDR:PORT` (unicast, broadcast or multicast) and bring DIS entities in from it")
	fs.StringVar(&f.dis.origin, "dis-origin", defaultOrigin, "with -dis: where the map's origin lies, `LAT,LON[,ALT]` (degrees, metres above WGS84)")
	fs.UintVar(&f.dis.exercise, "dis-exercise", disgate.DefaultExercise, "with -dis: the DIS exercise `id`")
	fs.UintVar(&f.dis.site, "dis-site", disgate.DefaultSite, "with -dis: the DIS site `number` of the match's tanks")
	fs.UintVar(&f.dis.app, "dis-app", disgate.DefaultApplication, "with -dis: the DIS application `number` of the match's tanks")
	fs.StringVar(&f.metrics, "metrics", "", "serve Prometheus metrics at http://`ADDR`/metrics and a liveness check at /healthz")
	fs.BoolVar(&f.agones, "agones", false, "run as an Agones game server, talking to the SDK sidecar on "+agones.Host+":$"+agones.PortEnv)
	fs.BoolVar(&f.selfAllocate, "self-allocate", false, "with -agones: mark the server Allocated when the first player joins (for fleets no allocator hands out)")
	fs.DurationVar(&f.healthEvery, "agones-health", DefaultHealthEvery, "with -agones: health ping `period`; the GameServer's health.periodSeconds must not be shorter")
	f.find = cli.FindableFlags(fs, "all", os.Getenv)
	fs.StringVar(&f.name, "name", "", "the match's `name` in the Join menu and the lists, up to 32 bytes (default: this machine's host name and the port, as mybox:7777)")
	fs.StringVar(&f.lists, "list", "", "register the match with list servers at `URL[,URL…]` (tanklist), renewing until the host stops")
	f.defences.Register(fs)
	f.identity = cli.IdentityFlags(fs)
	if err := cli.Parse(fs, args); err != nil {
		return f, err
	}
	lanSet := false
	fs.Visit(func(fl *flag.Flag) {
		lanSet = lanSet || fl.Name == "lan"
		f.idleSet = f.idleSet || fl.Name == "idle"
		f.roundsSet = f.roundsSet || fl.Name == "rounds"
	})
	if err := checkFlags(f); err != nil {
		return f, err
	}
	// The map is built in, or found in -maps, or a file: tankhost runs from anywhere.
	var err error
	if cfg.Map, err = cli.Map("map", f.mapArg, maps.Library{Dirs: []string{f.mapsDir}}); err != nil {
		return f, err
	}
	if f.agones && !f.idleSet {
		cfg.IdleTimeout = DefaultFleetIdle
	}
	// A fleet's game servers are found through list servers, not on the cluster's
	// network.
	if f.agones && !lanSet {
		f.find.LAN = "off"
	}
	if err := checkFindable(&f); err != nil {
		return f, err
	}
	// An Agones game server serves one match: its round's end ends the server.
	if f.agones && !f.roundsSet {
		cfg.Rounds = 1
	}
	cfg.Rules.TimeLimit = f.roundTime.Seconds()
	return f, nil
}

// checkFlags refuses, before anything starts, what the host cannot serve.
func checkFlags(f flags) error {
	cfg := &f.serve
	switch {
	case !(cfg.TickRate > 0 && cfg.TickRate <= 240):
		return cli.Usagef("tick", "%v: give a rate above 0 and at most 240 ticks per second", cfg.TickRate)
	case cfg.IdleTimeout < 0:
		return cli.Usagef("idle", "%v: give 0 (never) or a positive duration", cfg.IdleTimeout)
	case cfg.Rounds < 0:
		return cli.Usagef("rounds", "%d: give 0 (play on) or more", cfg.Rounds)
	case f.roundTime < 0:
		return cli.Usagef("round-time", "%v: give 0 (the default) or a positive duration", f.roundTime)
	case f.healthEvery <= 0:
		return cli.Usagef("agones-health", "%v: give a positive period", f.healthEvery)
	case f.selfAllocate && !f.agones:
		return cli.Usagef("self-allocate", "needs -agones")
	}
	if f.name != "" {
		if err := wire.CheckName(f.name); err != nil {
			return cli.Usagef("name", "%q: give up to %d bytes of printable text", f.name, wire.MaxNameLen)
		}
	}
	if err := cli.ListenAddr("listen", cfg.Addr); err != nil {
		return err
	}
	if err := cli.Bots("bots", cfg.Bots, game.MaxBots); err != nil {
		return err
	}
	if !(cfg.Patrol >= 0 && cfg.Patrol <= 1) {
		return cli.Usagef("patrol", "%v: give a share of the bots from 0 to 1 (0.5 patrols every second bot)", cfg.Patrol)
	}
	if f.metrics != "" {
		if err := cli.ListenAddr("metrics", f.metrics); err != nil {
			return err
		}
	}
	if err := f.dis.check(); err != nil {
		return err
	}
	if f.mapsDir != "" {
		return cli.MapsDir("maps", f.mapsDir)
	}
	return nil
}

// run parses args into a host configuration and serves until ctx ends or the match
// ends by its rules.
func run(ctx context.Context, args []string, stderr io.Writer, opt runOptions) error {
	f, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	cfg := f.serve
	cfg.Limits = f.defences.Limits()
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: f.level}))
	cfg.Logger = logger
	cfg.Ready, cfg.Wrap = opt.ready, opt.wrap
	cfg.Record.Program, cfg.Record.Now = "tankhost", time.Now
	getenv := opt.getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	logger.Info("memory limit", "MiB", f.defences.ApplyMemoryLimit(getenv)>>20)
	if f.agones && f.identity.Path == "" {
		// A game server's identity lives as long as its pod (a restarted container
		// makes the GameServer Unhealthy and it is replaced): nothing to keep, and
		// no writable home needed. The fingerprint goes out in the annotation.
		logger.Info("identity", "file", "none", "new", true)
	} else {
		cert, path, created, err := f.identity.Load(time.Now())
		if err != nil {
			return err
		}
		cfg.Certificate = cert
		logger.Info("identity", "file", path, "new", created)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The round clock waits for the first join, or for the allocation (closed by the
	// fleet agent).
	roundStart := make(chan struct{})
	cfg.RoundStart = roundStart

	var (
		listening []func(*net.Host)
		ticks     []func(session.ServeStatus)
		sdk       *agones.SDK
	)
	if f.agones {
		addr, err := agones.AddrFromEnv(getenv)
		if err != nil {
			return err
		}
		sdk = agones.New(agones.Config{Addr: addr, Logger: logger})
		fl := newFleet(sdk, f.selfAllocate, cfg.IdleTimeout, cancel, roundStart, logger)
		defer fl.exit()
		health := time.NewTicker(f.healthEvery)
		defer health.Stop()
		go sdk.KeepHealthy(ctx, health.C)
		if !f.selfAllocate {
			go fl.watchAllocation(ctx, f.healthEvery, time.Now)
		}
		listening = append(listening, fl.listening, func(h *net.Host) { go fl.logJoinLine(ctx, h.Fingerprint()) })
		ticks = append(ticks, fl.tick)
		logger.Info("agones", "sdk", addr, "health_every", f.healthEvery, "self_allocate", f.selfAllocate, "idle", cfg.IdleTimeout,
			"rounds", cfg.Rounds)
	}
	gw, err := f.dis.gateway()
	if err != nil {
		return cli.ListenError("dis", f.dis.addr, err)
	}
	cfg.DIS = gw
	if f.metrics != "" {
		mon := newMonitor(sdk, time.Now)
		if gw != nil {
			mon.registry.MustRegister(newDISCollector(gw))
		}
		addr, stop, err := serveMetrics(ctx, f.metrics, mon, logger)
		if err != nil {
			return err
		}
		defer stop()
		if opt.metrics != nil {
			opt.metrics(addr.String())
		}
		listening = append(listening, mon.listening)
		ticks = append(ticks, mon.tick)
	}
	if opt.tick != nil {
		ticks = append(ticks, opt.tick)
	}
	publish, unpublish := findable(f, sdk, logger)
	defer unpublish()
	listening = append(listening, publish)
	cfg.Listening = func(h *net.Host) {
		for _, l := range listening {
			l(h)
		}
	}
	cfg.Tick = func(st session.ServeStatus) {
		for _, t := range ticks {
			t(st)
		}
	}
	start := time.Now()
	err = session.Serve(ctx, cfg)
	logger.Info("stopped", "uptime", time.Since(start).Round(time.Millisecond))
	return cli.ListenError("listen", cfg.Addr, err)
}
