// Package cli holds what every Treadline command shares about its command line: one
// convention for errors and exit codes, and the validators of the flags that several
// commands take (bots, link impairment, names, addresses, files).
//
// The convention, the flag package's own: a bad command line prints one line
// "name: message" naming the flag and what it allows, and exits 2 before anything
// starts; -h prints the usage and exits 0; a failure after the start prints
// "name: message" and exits 1; a clean end, including one asked for by SIGINT or
// SIGTERM, exits 0.
//
//	func main() { cli.Main("tankhost", run) }
//
//	func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
//		fs := cli.NewFlagSet("tankhost", stderr)
//		bots := fs.Int("bots", 4, "number of computer-driven tanks")
//		if err := cli.Parse(fs, args); err != nil {
//			return err // a *cli.UsageError, or flag.ErrHelp
//		}
//		if err := cli.Bots("bots", *bots, game.MaxBots); err != nil {
//			return err
//		}
//		…
//	}
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes of every command.
const (
	// ExitOK is a clean end (or -h).
	ExitOK = 0
	// ExitFailure is a failure after the program started.
	ExitFailure = 1
	// ExitUsage is a bad command line, reported before anything started.
	ExitUsage = 2
)

// UsageError is a bad command line. Its message names the flag and says what the
// flag allows.
type UsageError struct {
	// Flag is the flag's name without the dash, or "" for a stray argument.
	Flag string
	// Msg says what is wrong and what is allowed.
	Msg string
}

func (e *UsageError) Error() string {
	if e.Flag == "" {
		return e.Msg
	}
	return "-" + e.Flag + " " + e.Msg
}

// Usagef returns a *UsageError for flag with a formatted message. The message follows
// the flag's name, so it usually starts with the offending value:
// Usagef("bots", "%d: at most %d", n, max) reads "-bots 1000: at most 63".
func Usagef(flag, format string, args ...any) error {
	return &UsageError{Flag: flag, Msg: fmt.Sprintf(format, args...)}
}

// Code returns the exit code for the error a command's run returned: ExitOK for nil,
// flag.ErrHelp and a cancellation by signal, ExitUsage for a *UsageError, ExitFailure
// otherwise.
func Code(err error) int {
	var ue *UsageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp), errors.Is(err, context.Canceled):
		return ExitOK
	case errors.As(err, &ue):
		return ExitUsage
	}
	return ExitFailure
}

// Line returns the one line a command prints for err, "name: message", or "" when
// nothing is printed (nil, -h, a cancellation by signal).
func Line(name string, err error) string {
	if Code(err) == ExitOK {
		return ""
	}
	return name + ": " + err.Error()
}

// RunFunc is a command's body: it parses args, starts, and returns when done or when
// ctx ends (SIGINT or SIGTERM), which is a clean end.
type RunFunc func(ctx context.Context, args []string, stdout, stderr io.Writer) error

// Main runs a command: run with os.Args, canceled on SIGINT or SIGTERM, then prints
// Line and exits with Code. It never returns.
func Main(name string, run RunFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if line := Line(name, err); line != "" {
		fmt.Fprintln(os.Stderr, line)
	}
	os.Exit(Code(err))
}

// NewFlagSet returns a flag set that reports errors instead of exiting, printing its
// usage to usage only for -h.
func NewFlagSet(name string, usage io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(usage)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage of %s:\n", name)
		fs.PrintDefaults()
	}
	return fs
}

// Parse parses args with fs. It returns flag.ErrHelp after printing the usage for -h,
// a *UsageError (and prints nothing) for a flag it cannot parse or a stray argument,
// or nil.
func Parse(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard) // the one-line error replaces flag's error and usage dump
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
		return err
	case err != nil:
		return &UsageError{Msg: err.Error() + " (-h lists the flags)"}
	case fs.NArg() > 0:
		return &UsageError{Msg: fmt.Sprintf("unexpected argument %q: every setting is a flag (-h lists them)", fs.Arg(0))}
	}
	return nil
}

// Set returns the names of the flags args set explicitly.
func Set(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}
