package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/treadline/treadline/assets/maps"
	"github.com/treadline/treadline/bot"
	"github.com/treadline/treadline/client"
	"github.com/treadline/treadline/cmd/internal/cli"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/disgate"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/render"
	"github.com/treadline/treadline/replay"
	"github.com/treadline/treadline/session"
	"github.com/treadline/treadline/terrain"
)

// config is everything the flags say.
type config struct {
	host, join, pass, name string
	dis                    string // -dis: the DIS gateway's address, with -host
	bots                   int
	botsSet                bool
	lag, jitter            time.Duration
	loss, lossBurst        float64
	impairSet              bool
	screenshot             string
	scoreboard             bool
	frames                 int
	duration               time.Duration
	width, height          int
	benchFrames            int
	cpuProfile             string // -cpuprofile: the file the run's CPU profile goes to
	overlays               render.Overlay
	// deadReckoning is the game's dead reckoning with -algorithm and -clamp applied.
	deadReckoning deadreckon.PublisherConfig
	mapDir, watch string
	mapArg        string       // -map, with -host
	hostMap       *terrain.Map // the map -map names, loaded by checkValues
	orbit         float64      // degrees
	seed          uint64
	difficulty    bot.Difficulty
	verbose       bool
	mute          bool
	identity      *cli.Identity
	defences      net.DefenceFlags // with -host
	find          *cli.Findable    // -lan
	list          listFlag         // -list [URL]
	lists         string           // -lists URL,…
	listsSet      bool             // -lists was given (it replaces the remembered lists)
	remember      bool             // with join: the match was found on the local network
	observe       bool             // with join: watch as an observer, with no tank
	// record is the file to record the match into; replay a recording to watch.
	record, replay string
	// seek, speed, ab and killcam set up the replay viewer at start.
	seek    time.Duration
	speed   float64
	ab      string
	killcam bool
}

// parseFlags reads the command line into a config.
func parseFlags(fs *flag.FlagSet, args []string) (config, error) {
	c := config{deadReckoning: game.DeadReckoning()}
	var size, overlays, algo, clamp string
	fs.StringVar(&c.host, "host", "", "host a match on `ADDR` (for example :7777) and play in it")
	fs.StringVar(&c.dis, "dis", "", "with -host: be a DIS gateway on UDP `ADDR:PORT` (unicast, broadcast or multicast; docs/dis.md)")
	fs.StringVar(&c.join, "join", "", "join the match at `ADDR[#fingerprint]`")
	fs.BoolVar(&c.observe, "observe", false, "with -join: watch the match as an observer, with no tank (P: the next tank, F: a free camera)")
	fs.StringVar(&c.pass, "pass", "", "match passphrase (host: required of joiners; join: proves it)")
	fs.StringVar(&c.name, "name", "", "player name (default \""+game.DefaultName+"\")")
	fs.IntVar(&c.bots, "bots", 0, fmt.Sprintf("number of bots (practice default %d, host default 0)", session.DefaultPracticeBots))
	fs.DurationVar(&c.lag, "lag", 0, "added one-way latency on this client's link (practice default 100ms)")
	fs.DurationVar(&c.jitter, "jitter", 0, "largest deviation from -lag (practice default 20ms)")
	fs.Float64Var(&c.loss, "loss", 0, "packet loss on this client's link, 0..1 (practice default 0.02)")
	fs.Float64Var(&c.lossBurst, "loss-burst", 0, "mean length of a run of lost packets on this client's link (0 or 1: independent losses)")
	fs.StringVar(&c.screenshot, "screenshot", "", "render, write the picture to `FILE.png` and exit")
	fs.IntVar(&c.frames, "frames", 0, "with -screenshot: frames to render first")
	fs.BoolVar(&c.scoreboard, "scoreboard", false, "with -screenshot: hold the scoreboard open, as Tab does")
	fs.DurationVar(&c.duration, "duration", 0, "with -screenshot: match time to play first (instead of -frames)")
	fs.StringVar(&size, "size", "1280x720", "window size `WxH` in pixels")
	fs.IntVar(&c.benchFrames, "bench-frames", 0, "render `N` frames, print the split of frame time and exit")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write the whole run's CPU profile to `FILE` (go tool pprof reads it; the window loop is client.RunGame)")
	fs.StringVar(&overlays, "overlays", "", "debug overlays at start: ghost,trail,clamp,motion,labels,hits or all")
	fs.StringVar(&algo, "algorithm", "pvb", "dead-reckoning algorithm for remote tanks: pvb, static, linear, quadratic, bezier, twopath, delayed")
	fs.StringVar(&clamp, "clamp", "", "ground clamp for remote tanks: none, up or always (default always)")
	fs.StringVar(&c.watch, "watch", "", "camera follows the tank called `NAME` instead of yours (\"*\": the first remote tank)")
	fs.Float64Var(&c.orbit, "orbit", 0, "the chase camera's start angle around the tank it follows, `degrees` (0: behind, 90: from its right)")
	fs.StringVar(&c.mapDir, "maps", "", "`directory` of more maps (NAME.json and its heightmap), searched before the built-in ones")
	fs.StringVar(&c.mapArg, "map", "", "with -host: the map to host, by `name` (built in: "+strings.Join(maps.Library{}.Names(), ", ")+
		"; or one in -maps) or as a sidecar file NAME.json (default \""+session.DefaultMapName+"\")")
	fs.Uint64Var(&c.seed, "seed", 1, "seed for bots and spawns")
	fs.TextVar(&c.difficulty, "difficulty", bot.Normal, "how well the bots shoot: easy, normal or hard")
	fs.BoolVar(&c.verbose, "v", false, "log match and network details")
	fs.BoolVar(&c.mute, "mute", false, "play without sound")
	c.find = cli.FindableFlags(fs, "all", os.Getenv)
	fs.Var(&c.list, "list", "alone: print the matches found (local network and -lists) and exit; with -host and a `URL`: register the match with that list server")
	fs.StringVar(&c.lists, "lists", "", "list servers the Join menu and -list read matches from, `URL[,URL…]` (remembered in the settings)")
	fs.StringVar(&c.record, "record", "", "record the match into `FILE` (tanks -replay FILE watches it; drlab -replay FILE measures it)")
	fs.StringVar(&c.replay, "replay", "", "watch the recorded match in `FILE`: play, pause, seek, speed, re-reckon with any algorithm (F1 lists the keys)")
	fs.DurationVar(&c.seek, "seek", 0, "with -replay: start this far into the recording")
	fs.Float64Var(&c.speed, "speed", 0, "with -replay: playback speed, 0.25 to 4 (0: 1)")
	fs.StringVar(&c.ab, "ab", "", "with -replay: show every tank as this second algorithm shows it too, as a ghost (A/B)")
	fs.BoolVar(&c.killcam, "killcam", false, "with -replay: start on the kill camera of the recorder's last death before -seek")
	c.defences.Register(fs)
	c.identity = cli.IdentityFlags(fs)
	if err := cli.Parse(fs, joinListURL(args)); err != nil {
		return c, err
	}
	set := cli.Set(fs)
	c.botsSet, c.listsSet = set["bots"], set["lists"]
	c.impairSet = set["lag"] || set["jitter"] || set["loss"] || set["loss-burst"]
	var err error
	if c.width, c.height, err = parseSize(size); err != nil {
		return c, err
	}
	if c.overlays, err = render.ParseOverlays(overlays); err != nil {
		return c, cli.Usagef("overlays", "%q: %v", overlays, err)
	}
	rc := &c.deadReckoning.Reckon
	if rc.Algorithm, err = deadreckon.ParseAlgorithm(algo); err != nil {
		return c, cli.Usagef("algorithm", "%q: give pvb, static, linear, quadratic, bezier, twopath or delayed", algo)
	}
	switch clamp {
	case "":
	case "none":
		rc.Clamp.Mode = deadreckon.ClampNone
	case "up":
		rc.Clamp.Mode = deadreckon.ClampUp
	case "always":
		rc.Clamp.Mode = deadreckon.ClampAlways
	default:
		return c, cli.Usagef("clamp", "%q: give none, up or always", clamp)
	}
	if err := checkFlags(c, set); err != nil {
		return c, err
	}
	if err := checkFinding(&c, set); err != nil {
		return c, err
	}
	return c, loadHostMap(&c)
}

// checkFlags refuses, before anything starts, what the match could not do: flags
// that do not go together, then values out of range.
func checkFlags(c config, set map[string]bool) error {
	if err := checkCombinations(c, set); err != nil {
		return err
	}
	return checkValues(c, set)
}

// checkCombinations refuses flags that do not go together, and counts below zero.
func checkCombinations(c config, set map[string]bool) error {
	if err := checkReplay(c, set); err != nil {
		return err
	}
	if err := checkRoles(c, set); err != nil {
		return err
	}
	return checkCapture(c)
}

// checkRoles refuses flags that do not fit the role the command line picks: host,
// join (as a player or an observer) or practice.
func checkRoles(c config, set map[string]bool) error {
	switch {
	case set["dis"] && !set["host"]:
		return cli.Usagef("dis", "needs -host: the DIS gateway runs in the host")
	case set["host"] && set["join"]:
		return cli.Usagef("host", "and -join cannot be used together: host a match or join one")
	case set["host"] && c.impairSet:
		return cli.Usagef("host", "with -lag, -jitter, -loss or -loss-burst: those impair a joining or practising player's own link; the host has none")
	case !set["host"] && set["map"]:
		return cli.Usagef("map", "applies to -host only: a practice match runs %s, and a joining player plays the host's map", session.DefaultMapName)
	case !set["host"] && (set["identity"] || set["new-identity"]):
		return cli.Usagef("identity", "and -new-identity apply to -host only: a practising or joining player has no host identity")
	case set["observe"] && !set["join"]:
		return cli.Usagef("observe", "needs -join: an observer watches a hosted match")
	case set["join"] && set["bots"]:
		return cli.Usagef("bots", "with -join: bots run on the host; give -bots to the host")
	}
	return nil
}

// checkCapture refuses screenshot and frame-timing flags out of range or without
// the -screenshot they serve.
func checkCapture(c config) error {
	switch {
	case c.scoreboard && c.screenshot == "":
		return cli.Usagef("scoreboard", "needs -screenshot (in play, hold Tab)")
	case (c.frames > 0 || c.duration > 0) && c.screenshot == "":
		return cli.Usagef("frames", "and -duration need -screenshot")
	case c.frames < 0:
		return cli.Usagef("frames", "%d: give 0 or more", c.frames)
	case c.duration < 0:
		return cli.Usagef("duration", "%v: give 0 or more", c.duration)
	case c.benchFrames < 0:
		return cli.Usagef("bench-frames", "%d: give 0 or more", c.benchFrames)
	case !(math.Abs(c.orbit) <= 360):
		return cli.Usagef("orbit", "%v: give degrees from -360 to 360", c.orbit)
	}
	return nil
}

// checkValues refuses a flag value out of range: bots, the link impairment, and each
// address, name and file given.
func checkValues(c config, set map[string]bool) error {
	checks := []func() error{
		func() error { return cli.Bots("bots", c.bots, game.MaxBots) },
		func() error { return cli.Fraction("loss", c.loss) },
		func() error { return cli.LossBurst("loss-burst", c.lossBurst, c.loss) },
		func() error { return cli.Link("lag", "jitter", c.lag, c.jitter) },
	}
	if set["host"] {
		checks = append(checks, func() error { return cli.ListenAddr("host", c.host) })
	}
	if set["join"] {
		checks = append(checks, func() error { return cli.JoinAddr("join", c.join) })
	}
	if set["name"] {
		checks = append(checks, func() error { return cli.Name("name", c.name) })
	}
	if set["watch"] && c.watch != "*" {
		checks = append(checks, func() error { return cli.Name("watch", c.watch) })
	}
	if set["screenshot"] {
		checks = append(checks, func() error { return cli.OutputFile("screenshot", c.screenshot, ".png") })
	}
	if set["cpuprofile"] {
		checks = append(checks, func() error { return cli.OutputFile("cpuprofile", c.cpuProfile, "") })
	}
	if set["replay"] {
		checks = append(checks, func() error { return cli.InputFile("replay", c.replay) })
	}
	if set["maps"] {
		checks = append(checks, func() error { return cli.MapsDir("maps", c.mapDir) })
	}
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// loadHostMap loads the map -map names into c.hostMap, after the flags were checked.
func loadHostMap(c *config) error {
	if c.mapArg == "" {
		return nil
	}
	mp, err := cli.Map("map", c.mapArg, maps.Library{Dirs: []string{c.mapDir}})
	c.hostMap = mp
	return err
}

// parseSize parses "WxH".
func parseSize(s string) (w, h int, err error) {
	ws, hs, ok := strings.Cut(strings.ToLower(s), "x")
	if ok {
		w, err = strconv.Atoi(ws)
		if err == nil {
			h, err = strconv.Atoi(hs)
		}
	}
	if !ok || err != nil || w < 64 || h < 64 || w > 16384 || h > 16384 {
		return 0, 0, cli.Usagef("size", "%q: give WxH with each side 64 to 16384 pixels, for example 1280x720", s)
	}
	return w, h, nil
}

// play runs the game in one window loop: the main menu and the matches it starts
// (withMenu), or the match c asks for, each shown connecting at once.
func play(ctx context.Context, c config, withMenu bool, stderr io.Writer) error {
	if err := render.CheckDisplay(); err != nil {
		return err
	}
	if c.cpuProfile != "" {
		stop, err := startProfile(c.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	set := loadSettings(stderr)
	save := func(s client.Settings) { saveSettings(s, stderr) }
	if c.replay != "" {
		return watchReplay(ctx, c, &set, stderr)
	}
	if withMenu && c.listsSet {
		set.Lists = c.lists
		save(set)
	}
	logger := newLogger(c, stderr)
	var snd *client.Sound
	if c.screenshot == "" && c.benchFrames == 0 {
		snd = openSound(c, set, stderr)
		defer snd.Close()
	}
	g := client.GameConfig{
		Display: client.Display{Width: c.width, Height: c.height, Screenshot: c.screenshot, Frames: c.frames,
			Duration: c.duration, BenchFrames: c.benchFrames, Logger: logger},
		Menu: client.MenuConfig{Settings: set, Check: checkChoice, Apply: save, Find: &client.FindConfig{LAN: c.find.LAN}},
		Choose: func(mode client.MenuMode, s *client.Settings) *client.Connecting {
			return connecting(matchFor(c, mode, *s), s, snd, save, logger, stderr)
		},
		Say: func(line string) { fmt.Fprintln(stderr, "tanks:", line) },
	}
	if !withMenu {
		g.First = connecting(c, &set, snd, save, logger, stderr)
	}
	return ignoreCanceled(client.RunGame(ctx, g))
}

// newLogger is the log c asks for: warnings, or with -v what the match and the
// network do.
func newLogger(c config, stderr io.Writer) *slog.Logger {
	level := slog.LevelWarn
	if c.verbose {
		level = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
}

// connecting is the match c asks for as the connecting screen starts it, played with
// the settings *set (which its pause menu edits) and the sound snd. Its end lets go
// of the session, stops announcing a hosted match and says how it ended.
func connecting(c config, set *client.Settings, snd *client.Sound, save func(client.Settings), logger *slog.Logger,
	stderr io.Writer) *client.Connecting {
	if c.name == "" {
		c.name = set.Name
	}
	mc := game.Config{Name: c.name, Team: set.Team, Seed: c.seed, DeadReckoning: c.deadReckoning,
		Difficulty: c.difficulty, Logger: logger, Observe: c.join != "" && c.observe}
	link := impair.Link{Latency: c.lag, Jitter: c.jitter, Loss: c.loss, LossBurst: c.lossBurst}
	rec := recording(c, *set, stderr)
	cc := &client.Connecting{Mode: client.MenuPractice, Title: "Starting a practice match…"}
	switch {
	case c.host != "":
		cc.Mode, cc.Title = client.MenuHost, "Hosting a match on "+c.host+"…"
	case c.join != "":
		addr, _, _ := strings.Cut(c.join, "#")
		cc.Mode, cc.Addr, cc.Title = client.MenuJoin, addr, "Connecting to "+addr+"…"
		if set.Last.JoinName != "" && set.Last.JoinAddr == c.join {
			cc.Title = "Connecting to " + set.Last.JoinName + " (" + addr + ")…"
		}
	}
	cc.Start = func(ctx context.Context, step func(string)) (*client.Started, error) {
		m, sess, mode, err := startMatch(ctx, c, mc, link, rec, logger, step)
		if err != nil {
			return nil, err
		}
		logger.Info("match started", "mode", mode)
		notice := matchNotice(c, mode, sess, stderr)
		stop := func() {}
		if mode == "host" {
			ifaces, _ := c.find.Interfaces("lan", c.host) // checked with the flags
			stop = cli.Publish(sess.Host, cli.HostInfo{Name: c.name, Passphrase: c.pass != "",
				Capacity: c.defences.Limits().MaxPlayers, HostPlays: true}, ifaces, splitURLs(c.list.urls), logger)
		}
		mp := m.Terrain()
		rc := client.RunConfig{
			Display:    display(c, mp, set, logger),
			Clock:      m.Now,
			OnSettings: save,
			Notice:     notice,
			Pause:      sess.Pause,
			Sound:      snd,
			Recording:  sess.Recording,
		}
		rc.Title = "Treadline — " + mode
		rc.BenchFrames = c.benchFrames
		rc.Host = cc.Addr
		if sess.Recent != nil {
			rc.KillCam = true
			rc.Recent = func() (*replay.Recording, error) { return replay.ReadRing(sess.Recent) }
			rc.Map = mp
		}
		return &client.Started{Match: m, Config: rc, End: func(err error) error {
			stop()
			sess.Close() // its log lines come before the verdict
			return outcome(err, rc.Host, stderr)
		}}, nil
	}
	return cc
}

// display is what a match and a replay of the map mp show in the window, as c's
// display flags and the settings set say.
func display(c config, mp *terrain.Map, set *client.Settings, logger *slog.Logger) client.Display {
	return client.Display{
		Width: c.width, Height: c.height,
		Terrain:    render.TerrainFromMap(mp, 0),
		Ground:     mp.HeightAt,
		Raycast:    mp.Raycast,
		Overlays:   c.overlays,
		Watch:      c.watch,
		Orbit:      c.orbit * math.Pi / 180,
		Screenshot: c.screenshot,
		Scoreboard: c.scoreboard,
		Frames:     c.frames,
		Duration:   c.duration,
		Logger:     logger,
		Settings:   set,
	}
}

// startMatch hosts, joins or starts the practice match c asks for, with mc as the
// player's match, telling each step through step; mode names which ("host", "join"
// or "practice").
func startMatch(ctx context.Context, c config, mc game.Config, link impair.Link, rec session.Recording, logger *slog.Logger,
	step func(string)) (*game.Match, *session.Session, string, error) {
	var (
		m    *game.Match
		sess *session.Session
		err  error
		mode string
	)
	switch {
	case c.host != "":
		mc.Bots = c.bots
		c.defences.ApplyMemoryLimit(os.Getenv)
		cert, path, created, ierr := c.identity.Load(time.Now())
		if ierr != nil {
			return nil, nil, "", ierr
		}
		logger.Info("identity", "file", path, "new", created)
		step("Opening the match to players")
		mc.Map = c.hostMap // nil: the default map
		var gw *disgate.Gateway
		if c.dis != "" {
			if gw, err = disgate.New(disgate.Config{Addr: c.dis, Logger: logger}); err != nil {
				return nil, nil, "host", cli.ListenError("dis", c.dis, err)
			}
		}
		m, sess, err = session.Host(ctx, session.HostConfig{Addr: c.host, Passphrase: c.pass, Match: mc, MapDir: c.mapDir,
			Limits: c.defences.Limits(), Certificate: cert, Logger: logger, Record: rec, DIS: gw})
		if err != nil && gw != nil {
			gw.Close()
		}
		mode = "host"
	case c.join != "":
		steps := joinSteps
		if mc.Observe {
			steps[session.JoinSpawn] = "Loading the map (observing: no tank)"
		}
		m, sess, err = session.Join(ctx, session.JoinConfig{Addr: c.join, Passphrase: c.pass, Remember: c.remember, Impairment: link,
			Match: mc, MapDir: c.mapDir, Logger: logger, Record: rec, Progress: func(s session.JoinStep) { step(steps[s]) }})
		mode = "join"
		if mc.Observe {
			mode = "observe"
		}
	default:
		step("Starting the host and its bots, joining it")
		pc := practiceConfig(c, mc, link, logger)
		pc.Record = rec
		m, sess, err = session.Practice(ctx, pc)
		mode = "practice"
	}
	if je := (*net.JoinError)(nil); errors.As(err, &je) {
		// The sentence for the player; the chain is in the log (-v).
		return nil, nil, mode, &explained{words: je.Sentence(), err: err}
	}
	if err != nil {
		if mode == "host" {
			if ue := cli.ListenError("host", c.host, err); cli.Code(ue) == cli.ExitUsage {
				return nil, nil, mode, ue
			}
		}
		return nil, nil, mode, fmt.Errorf("start %s match: %w", mode, err)
	}
	return m, sess, mode, nil
}

// joinSteps name the steps of a join on the connecting screen.
var joinSteps = [...]string{
	session.JoinHandshake: "Reaching the host (handshake)",
	session.JoinAdmission: "Joining (passphrase, admission)",
	session.JoinSpawn:     "Placing your tank (spawn)",
}

// practiceConfig is the practice match c asks for: the flags' bots and impairment
// where given (zero of either meaning none), the defaults otherwise.
func practiceConfig(c config, mc game.Config, link impair.Link, logger *slog.Logger) session.PracticeConfig {
	// Alone with bots, the pause menu stops the whole match (a screenshot or
	// benchmark run never pauses).
	pc := session.PracticeConfig{Match: mc, MapDir: c.mapDir, Logger: logger,
		Clock: session.NewPauseClock(wallClock{start: time.Now()})}
	if c.botsSet {
		pc.Bots = c.bots
		if c.bots == 0 {
			pc.Bots = session.Off
		}
	}
	if c.impairSet {
		if !link.Active() {
			link = impair.Link{}
		}
		pc.Impairment = &link
	}
	return pc
}

// matchNotice is the line the window shows as the match starts: the practice's
// teams, or the address others join a host at (also written to stderr, for a
// host without a window to read).
func matchNotice(c config, mode string, sess *session.Session, stderr io.Writer) string {
	switch mode {
	case "practice":
		bots := session.DefaultPracticeBots
		if c.botsSet {
			bots = max(c.bots, 0)
		}
		friends, enemies := session.PracticeTeams(bots)
		return fmt.Sprintf("Practice: you are on team %d with %d bot teammates, against %d bots. Esc pauses the match.",
			session.PracticeTeam, friends, enemies)
	case "host":
		fmt.Fprintf(stderr, "tanks: hosting on %s; others join with: tanks -join %s#%s\n", sess.Addr, sess.Addr, sess.Fingerprint)
		return fmt.Sprintf("hosting on %s; others join with %s#%s", sess.Addr, sess.Addr, sess.Fingerprint)
	}
	return ""
}

// outcome turns how the match ended into run's result: nil when it ended normally (the
// player left, the window closed, the host ended the match: exit code 0), otherwise an
// error that reads as a person's sentence and wraps the chain (already in the log).
func outcome(err error, host string, stderr io.Writer) error {
	if err == nil || errors.Is(err, client.ErrLeft) || errors.Is(err, context.Canceled) {
		return nil
	}
	if !errors.Is(err, game.ErrLinkClosed) {
		return err
	}
	words, normal := game.Explain(err, host)
	if normal {
		fmt.Fprintln(stderr, "tanks:", words)
		return nil
	}
	return &explained{words: words, err: err}
}

// explained is an error told in a person's words, wrapping the error chain.
type explained struct {
	words string
	err   error
}

func (e *explained) Error() string    { return e.words }
func (e *explained) Unwrap() error    { return e.err }
func (e *explained) Sentence() string { return e.words }

// wallClock is the process's monotonic clock, for the practice's PauseClock.
type wallClock struct{ start time.Time }

// Now returns the time since the clock was made.
func (c wallClock) Now() time.Duration { return time.Since(c.start) }
