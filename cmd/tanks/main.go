// Command tanks is the Treadline desktop client. With no flags it starts a practice
// match at once: an in-process host with bots on loopback, behind an impaired link,
// so every other tank is really dead-reckoned.
//
//	tanks                                   practice (-bots N, -lag -jitter -loss)
//	tanks -host :7777 [-pass P] [-bots N]   host a match and play in it
//	tanks -join ADDR[#fingerprint] [-name N] [-pass P] [-lag D -jitter D -loss F]
//
// With -host, flags such as -max-handshakes, -retry-above, -max-players-per-addr,
// -idle-kick and -mem-limit tune the host's defences, as on tankhost (README,
// "Security").
//
// Display and debugging: -size 1280x720, -overlays ghost,trail,clamp,motion,labels,hits
// (or all), -algorithm pvb|static|linear|quadratic|bezier|twopath|delayed,
// -clamp none|up|always, -watch NAME ("*": the first remote tank). For tests, docs
// and bug reports, -screenshot FILE.png -frames N (or -duration D) renders, writes the
// picture and exits, and -bench-frames N prints the split of frame time (simulation,
// scene update, render, swap). F1 in the game lists every key.
//
// It exits 0 when the window is closed or the player leaves from the menu, 1 with a
// message when the match cannot start or is lost (the host stops responding), and 2
// on bad flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/treadline/treadline/render"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("tanks: ")
	cfg, err := parseFlags(flag.CommandLine, os.Args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "tanks:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = run(ctx, cfg)
	switch {
	case err == nil, errors.Is(err, render.ErrLeft):
	case errors.Is(err, context.Canceled):
		log.Print("interrupted")
	default:
		stop()
		log.Fatal(err)
	}
}
