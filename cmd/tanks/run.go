package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/render"
)

// config is everything the flags say.
type config struct {
	host, join, pass, name string
	bots                   int
	botsSet                bool
	lag, jitter            time.Duration
	loss                   float64
	impairSet              bool
	screenshot             string
	frames                 int
	duration               time.Duration
	width, height          int
	benchFrames            int
	overlays               render.Overlay
	// deadReckoning is the game's dead reckoning with -algorithm and -clamp applied.
	deadReckoning deadreckon.PublisherConfig
	mapDir, watch string
	seed          uint64
	difficulty    game.Difficulty
	verbose       bool
	defences      net.DefenceFlags // with -host
}

// parseFlags reads the command line into a config.
func parseFlags(fs *flag.FlagSet, args []string) (config, error) {
	c := config{deadReckoning: game.DeadReckoning()}
	var size, overlays, algo, clamp string
	fs.StringVar(&c.host, "host", "", "host a match on `ADDR` (for example :7777) and play in it")
	fs.StringVar(&c.join, "join", "", "join the match at `ADDR[#fingerprint]`")
	fs.StringVar(&c.pass, "pass", "", "match passphrase (host: required of joiners; join: proves it)")
	fs.StringVar(&c.name, "name", "", "player name (default \""+game.DefaultName+"\")")
	fs.IntVar(&c.bots, "bots", 0, fmt.Sprintf("number of bots (practice default %d, host default 0)", game.DefaultPracticeBots))
	fs.DurationVar(&c.lag, "lag", 0, "added one-way latency on this client's link (practice default 100ms)")
	fs.DurationVar(&c.jitter, "jitter", 0, "largest deviation from -lag (practice default 20ms)")
	fs.Float64Var(&c.loss, "loss", 0, "packet loss on this client's link, 0..1 (practice default 0.02)")
	fs.StringVar(&c.screenshot, "screenshot", "", "render, write the picture to `FILE.png` and exit")
	fs.IntVar(&c.frames, "frames", 0, "with -screenshot: frames to render first")
	fs.DurationVar(&c.duration, "duration", 0, "with -screenshot: match time to play first (instead of -frames)")
	fs.StringVar(&size, "size", "1280x720", "window size `WxH` in pixels")
	fs.IntVar(&c.benchFrames, "bench-frames", 0, "render `N` frames, print the split of frame time and exit")
	fs.StringVar(&overlays, "overlays", "", "debug overlays at start: ghost,trail,clamp,motion,labels,hits or all")
	fs.StringVar(&algo, "algorithm", "pvb", "dead-reckoning algorithm for remote tanks: pvb, static, linear, quadratic, bezier, twopath, delayed")
	fs.StringVar(&clamp, "clamp", "", "ground clamp for remote tanks: none, up or always (default always)")
	fs.StringVar(&c.watch, "watch", "", "camera follows the tank called `NAME` instead of yours (\"*\": the first remote tank)")
	fs.StringVar(&c.mapDir, "maps", game.DefaultMapDir, "directory holding the map files")
	fs.Uint64Var(&c.seed, "seed", 1, "seed for bots and spawns")
	fs.TextVar(&c.difficulty, "difficulty", game.Normal, "how well the bots shoot: easy, normal or hard")
	fs.BoolVar(&c.verbose, "v", false, "log match and network details")
	c.defences.Register(fs)
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "bots":
			c.botsSet = true
		case "lag", "jitter", "loss":
			c.impairSet = true
		}
	})
	var err error
	if c.width, c.height, err = parseSize(size); err != nil {
		return c, err
	}
	if c.overlays, err = render.ParseOverlays(overlays); err != nil {
		return c, err
	}
	rc := &c.deadReckoning.Reckon
	if rc.Algorithm, err = deadreckon.ParseAlgorithm(algo); err != nil {
		return c, err
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
		return c, fmt.Errorf("-clamp %q: want none, up or always", clamp)
	}
	return c, c.check()
}

// check reports flags that contradict each other or are out of range.
func (c *config) check() error {
	switch {
	case c.host != "" && c.join != "":
		return fmt.Errorf("-host and -join cannot be used together")
	case c.bots < 0:
		return fmt.Errorf("-bots %d is negative", c.bots)
	case c.loss < 0 || c.loss > 1:
		return fmt.Errorf("-loss %v is outside 0..1", c.loss)
	case c.lag < 0 || c.jitter < 0:
		return fmt.Errorf("-lag and -jitter must not be negative")
	case c.frames < 0 || c.benchFrames < 0 || c.duration < 0:
		return fmt.Errorf("-frames, -duration and -bench-frames must not be negative")
	case (c.frames > 0 || c.duration > 0) && c.screenshot == "":
		return fmt.Errorf("-frames and -duration need -screenshot")
	}
	return nil
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
		return 0, 0, fmt.Errorf("-size %q: want WxH with each side 64..16384 pixels", s)
	}
	return w, h, nil
}

// run starts the match the flags ask for and plays it in the window.
func run(ctx context.Context, c config) error {
	if err := render.CheckDisplay(); err != nil {
		return err
	}
	level := slog.LevelWarn
	if c.verbose {
		level = slog.LevelInfo
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	mc := game.Config{Name: c.name, Seed: c.seed, DeadReckoning: c.deadReckoning, Difficulty: c.difficulty, Logger: logger}
	link := impair.Link{Latency: c.lag, Jitter: c.jitter, Loss: c.loss}

	var (
		m    *game.Match
		sess *game.Session
		err  error
		mode string
	)
	switch {
	case c.host != "":
		mc.Bots = c.bots
		c.defences.ApplyMemoryLimit(os.Getenv)
		m, sess, err = game.Host(ctx, game.HostConfig{Addr: c.host, Passphrase: c.pass, Match: mc, MapDir: c.mapDir,
			Limits: c.defences.Limits(), Logger: logger})
		mode = "host"
	case c.join != "":
		m, sess, err = game.Join(ctx, game.JoinConfig{Addr: c.join, Passphrase: c.pass, Impairment: link, Match: mc, MapDir: c.mapDir, Logger: logger})
		mode = "join"
	default:
		pc := game.PracticeConfig{Match: mc, MapDir: c.mapDir, Logger: logger}
		if c.botsSet {
			pc.Bots = c.bots
			if c.bots == 0 {
				pc.Bots = -1
			}
		}
		if c.impairSet {
			pc.Impairment = link
			pc.NoImpairment = !link.Active()
		}
		m, sess, err = game.Practice(ctx, pc)
		mode = "practice"
	}
	if err != nil {
		return fmt.Errorf("start %s match: %w", mode, err)
	}
	defer sess.Close()
	if mode == "host" {
		fmt.Fprintf(os.Stderr, "tanks: hosting on %s; others join with: tanks -join %s#%s\n", sess.Addr, sess.Addr, sess.Fingerprint)
	}
	mp := m.Terrain()
	rc := render.RunConfig{
		Width: c.width, Height: c.height, Title: "Treadline — " + mode,
		Terrain:     render.TerrainFromMap(mp, 0),
		Ground:      mp.HeightAt,
		Overlays:    c.overlays,
		Watch:       c.watch,
		Clock:       m.Now,
		Screenshot:  c.screenshot,
		Frames:      c.frames,
		Duration:    c.duration.Seconds(),
		BenchFrames: c.benchFrames,
		Logger:      logger,
	}
	if err := render.Run(ctx, rc, m); err != nil {
		if mode == "join" && ctx.Err() == nil {
			addr, _, _ := strings.Cut(c.join, "#")
			return fmt.Errorf("lost the match at %s: %w", addr, err)
		}
		return err
	}
	return nil
}
