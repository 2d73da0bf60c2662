// Command tankhost runs a headless Treadline host: it listens for players, runs bots
// through a match on the host's own peer, relays every player's tanks, logs with slog,
// and stops cleanly on SIGINT or SIGTERM. It needs no display and no cgo.
//
//	tankhost -listen :7777 [-pass secret] [-bots 4] [-map assets/maps/valley.json]
//
// Flags such as -max-handshakes, -retry-above, -max-joining-per-prefix, -idle-kick
// and -mem-limit tune the host's defences (README, "Security").
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/net"
)

// DefaultListen is the address tankhost listens on unless -listen says otherwise.
const DefaultListen = ":7777"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr, nil); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		log.Fatal(err)
	}
}

// run parses args into a host configuration and serves until ctx ends. ready, if not
// nil, is called with the address and fingerprint once the host listens.
func run(ctx context.Context, args []string, stderr io.Writer, ready func(addr, fp string)) error {
	fs := flag.NewFlagSet("tankhost", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		cfg      game.ServeConfig
		level    slog.Level
		defences net.DefenceFlags
	)
	fs.StringVar(&cfg.Addr, "listen", DefaultListen, "UDP `address` to listen on")
	fs.StringVar(&cfg.Passphrase, "pass", "", "`passphrase` players must know to join (empty: open)")
	fs.IntVar(&cfg.Bots, "bots", 4, "number of computer-driven tanks")
	fs.StringVar(&cfg.MapPath, "map", "assets/maps/valley.json", "map sidecar `file`")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed for the bots")
	fs.TextVar(&cfg.Difficulty, "difficulty", game.Normal, "how well the bots shoot: easy, normal or hard")
	fs.Float64Var(&cfg.TickRate, "tick", game.DefaultHostTickRate, "bot simulation `rate`, ticks per second")
	fs.DurationVar(&cfg.StatsEvery, "stats", game.DefaultStatsEvery, "how often to log figures (negative: never)")
	fs.TextVar(&level, "log-level", slog.LevelInfo, "log `level`: debug, info, warn or error")
	defences.Register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if cfg.Bots < 0 {
		return fmt.Errorf("-bots %d: must not be negative", cfg.Bots)
	}
	if !(cfg.TickRate > 0 && cfg.TickRate <= 240) {
		return fmt.Errorf("-tick %v: must be in (0, 240]", cfg.TickRate)
	}
	cfg.Limits = defences.Limits()
	cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	cfg.Logger.Info("memory limit", "MiB", defences.ApplyMemoryLimit(os.Getenv)>>20)
	cfg.Ready = ready
	start := time.Now()
	err := game.Serve(ctx, cfg)
	cfg.Logger.Info("stopped", "uptime", time.Since(start).Round(time.Millisecond))
	return err
}
