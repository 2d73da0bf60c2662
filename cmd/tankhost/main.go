// Command tankhost runs a headless Treadline host: it listens for players, runs bots
// through a match on the host's own peer, relays every player's tanks, logs with slog,
// and stops cleanly on SIGINT or SIGTERM. It needs no display and no cgo.
//
//	tankhost -listen :7777 [-pass secret] [-bots 4] [-map assets/maps/valley.json]
//	         [-identity FILE] [-new-identity]
//
// The host keeps its key and certificate in host-identity.pem in the user's config
// directory (or the file -identity names), so its fingerprint survives restarts and
// players who trusted it once can join again; -new-identity replaces it.
//
// Flags such as -max-handshakes, -retry-above, -max-joining-per-prefix, -idle-kick
// and -mem-limit tune the host's defences (README, "Security").
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/treadline/treadline/cmd/internal/cli"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/net"
)

// DefaultListen is the address tankhost listens on unless -listen says otherwise.
const DefaultListen = ":7777"

func main() {
	cli.Main("tankhost", func(ctx context.Context, args []string, _, stderr io.Writer) error {
		return run(ctx, args, stderr, nil)
	})
}

// run parses args into a host configuration and serves until ctx ends. ready, if not
// nil, is called with the address and fingerprint once the host listens. A bad
// command line is a *cli.UsageError, returned before anything starts.
func run(ctx context.Context, args []string, stderr io.Writer, ready func(addr, fp string)) error {
	fs := cli.NewFlagSet("tankhost", stderr)
	var (
		cfg      game.ServeConfig
		level    slog.Level
		defences net.DefenceFlags
	)
	fs.StringVar(&cfg.Addr, "listen", DefaultListen, "UDP `address` to listen on")
	fs.StringVar(&cfg.Passphrase, "pass", "", "`passphrase` players must know to join (empty: open)")
	fs.IntVar(&cfg.Bots, "bots", 4, fmt.Sprintf("number of computer-driven tanks, 0..%d", game.MaxBots))
	fs.StringVar(&cfg.MapPath, "map", "assets/maps/valley.json", "map sidecar `file`")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed for the bots")
	fs.TextVar(&cfg.Difficulty, "difficulty", game.Normal, "how well the bots shoot: easy, normal or hard")
	fs.Float64Var(&cfg.TickRate, "tick", game.DefaultHostTickRate, "bot simulation `rate`, ticks per second, up to 240")
	fs.DurationVar(&cfg.StatsEvery, "stats", game.DefaultStatsEvery, "how often to log figures (negative: never)")
	fs.TextVar(&level, "log-level", slog.LevelInfo, "log `level`: debug, info, warn or error")
	defences.Register(fs)
	identity := cli.IdentityFlags(fs)
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if err := checkFlags(cfg); err != nil {
		return err
	}
	cfg.Limits = defences.Limits()
	cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	cfg.Logger.Info("memory limit", "MiB", defences.ApplyMemoryLimit(os.Getenv)>>20)
	cert, path, created, err := identity.Load(time.Now())
	if err != nil {
		return err
	}
	cfg.Certificate = cert
	cfg.Logger.Info("identity", "file", path, "new", created)
	cfg.Ready = ready
	start := time.Now()
	err = game.Serve(ctx, cfg)
	cfg.Logger.Info("stopped", "uptime", time.Since(start).Round(time.Millisecond))
	return cli.ListenError("listen", cfg.Addr, err)
}

// checkFlags refuses what the host cannot serve.
func checkFlags(cfg game.ServeConfig) error {
	if err := cli.ListenAddr("listen", cfg.Addr); err != nil {
		return err
	}
	if err := cli.Bots("bots", cfg.Bots, game.MaxBots); err != nil {
		return err
	}
	if !(cfg.TickRate > 0 && cfg.TickRate <= 240) {
		return cli.Usagef("tick", "%v: give a rate above 0 and at most 240 ticks per second", cfg.TickRate)
	}
	return cli.InputFile("map", cfg.MapPath)
}
