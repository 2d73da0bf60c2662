// Command tanks is the Treadline desktop client. With no flags it starts a practice
// match against bots at once; -host hosts a match and plays in it; -join joins one.
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
