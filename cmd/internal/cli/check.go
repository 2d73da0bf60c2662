package cli

import (
	"errors"
	"fmt"
	"math"
	stdnet "net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
)

// MaxLinkDelay is the largest one-way delay -lag and -jitter may add together: a link
// slower than this is no longer a game. Joins hold on it (net's join waits follow the
// measured round trip; BenchmarkJoinOverBadLink in package net measures them).
const MaxLinkDelay = 500 * time.Millisecond

// Bots checks a bot count against the match's limit.
func Bots(flag string, n, max int) error {
	if n < 0 || n > max {
		return Usagef(flag, "%d: give 0 to %d bots (a match holds at most %d tanks)", n, max, max+1)
	}
	return nil
}

// Fraction checks a probability such as -loss: a number from 0 to 1 (NaN is not).
func Fraction(flag string, v float64) error {
	if !(v >= 0 && v <= 1) {
		return Usagef(flag, "%v: give a fraction from 0 to 1 (0.02 loses 2 %% of packets)", v)
	}
	return nil
}

// LossBurst checks the mean length of a run of lost packets, such as -loss-burst:
// 0 or more (0 and 1 mean independent losses), and below 1 loss when bursts are
// asked for (a link losing everything has no bursts).
func LossBurst(flag string, burst, loss float64) error {
	switch {
	case !(burst >= 0) || math.IsInf(burst, 0):
		return Usagef(flag, "%v: give a mean run length of 0 or more packets (0 or 1: independent losses)", burst)
	case burst > 1 && loss >= 1:
		return Usagef(flag, "%v with -loss %v: every packet is lost already; give a -loss below 1", burst, loss)
	}
	return nil
}

// Link checks the added latency and jitter of an impaired link: neither negative,
// jitter no larger than the latency it deviates from (a delay drawn from lag ± jitter
// cannot go below zero, so a larger jitter would quietly raise the mean delay), and
// both together at most MaxLinkDelay.
func Link(lagFlag, jitterFlag string, lag, jitter time.Duration) error {
	switch {
	case lag < 0:
		return Usagef(lagFlag, "%v: give a delay of 0 or more", lag)
	case jitter < 0:
		return Usagef(jitterFlag, "%v: give a deviation of 0 or more", jitter)
	case jitter > lag:
		return Usagef(jitterFlag, "%v is larger than -%s %v: each packet is delayed by lag ± jitter and no delay goes below zero; give a -%s of at most -%s",
			jitter, lagFlag, lag, jitterFlag, lagFlag)
	case lag+jitter > MaxLinkDelay:
		why := fmt.Sprintf("at most %v of added one-way delay (a slower link is no longer a game)", MaxLinkDelay)
		if jitter == 0 {
			return Usagef(lagFlag, "%v: give %s", lag, why)
		}
		return Usagef(lagFlag, "%v with -%s %v: give together %s", lag, jitterFlag, jitter, why)
	}
	return nil
}

// Name checks a player name: 1 to wire.MaxNameLen bytes of printable UTF-8.
func Name(flag, name string) error {
	if err := wire.CheckName(name); err != nil {
		return Usagef(flag, "%q: give a name of 1 to %d bytes of printable text", name, wire.MaxNameLen)
	}
	return nil
}

// JoinAddr checks a host address with an optional pinned fingerprint,
// HOST:PORT[#fingerprint].
func JoinAddr(flag, s string) error {
	const want = "give the host's address as HOST:PORT, optionally followed by #FINGERPRINT (64 hex digits)"
	if s == "" {
		return Usagef(flag, "%q: %s", s, want)
	}
	addr, _, err := net.SplitJoin(s)
	if err != nil {
		return Usagef(flag, "%q: %s", s, want)
	}
	host, port, err := stdnet.SplitHostPort(addr)
	if err != nil || host == "" || !validPort(port, false) {
		return Usagef(flag, "%q: %s", s, want)
	}
	return nil
}

// ListenAddr checks an address to listen on, [HOST]:PORT (port 0 picks a free one).
func ListenAddr(flag, s string) error {
	if _, port, err := stdnet.SplitHostPort(s); err != nil || !validPort(port, true) {
		return Usagef(flag, "%q: give [HOST]:PORT with a port from 1 to 65535, for example :7777", s)
	}
	return nil
}

func validPort(p string, zeroOK bool) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n <= 65535 && (n > 0 || zeroOK && n == 0)
}

// ListenError rewords a failure to open the listening socket at addr, which flag
// gave, as a *UsageError when the address is the problem (in use, not local, needing
// privileges); other errors come back unchanged.
func ListenError(flag, addr string, err error) error {
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return Usagef(flag, "%s: that UDP port is already in use (is another host running? pick another port)", addr)
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return Usagef(flag, "%s: that address is not one of this machine's (leave the host part empty to listen on all)", addr)
	case errors.Is(err, syscall.EACCES):
		return Usagef(flag, "%s: permission denied (ports below 1024 need privileges; pick a higher one)", addr)
	}
	return err
}

// InputFile checks that path names a readable regular file.
func InputFile(flag, path string) error {
	if path == "" {
		return Usagef(flag, `"": give a file name`)
	}
	f, err := os.Open(path)
	if err != nil {
		var why string
		switch {
		case errors.Is(err, os.ErrNotExist):
			why = "no such file"
		case errors.Is(err, os.ErrPermission):
			why = "permission denied"
		default:
			why = err.Error()
		}
		return Usagef(flag, "%s: %s", path, why)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return Usagef(flag, "%s: not a regular file", path)
	}
	return nil
}

// OutputFile checks, before any work is done, that a file can be written at path: its
// directory exists and takes new files, and path itself is not a directory. ext, if
// not empty, is the extension path must have (".png").
func OutputFile(flag, path, ext string) error {
	if path == "" {
		return Usagef(flag, `"": give a file name`)
	}
	if ext != "" && filepath.Ext(path) != ext {
		return Usagef(flag, "%s: give a file name ending in %s", path, ext)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return Usagef(flag, "%s: is a directory; give a file name", path)
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return Usagef(flag, "%s: directory %s does not exist", path, dir)
	case err != nil:
		return Usagef(flag, "%s: %v", path, err)
	case !st.IsDir():
		return Usagef(flag, "%s: %s is not a directory", path, dir)
	}
	probe, err := os.CreateTemp(dir, ".write-check-*")
	if err != nil {
		return Usagef(flag, "%s: cannot write in %s", path, dir)
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// Finite checks that a flag's number is finite and within [lo, hi].
func Finite(flag string, v, lo, hi float64, unit string) error {
	if math.IsNaN(v) || v < lo || v > hi {
		return Usagef(flag, "%v: give a number from %v to %v%s", v, lo, hi, unit)
	}
	return nil
}
