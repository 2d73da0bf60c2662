package net

import (
	"log/slog"
	"sync"
	"testing"
	"time"
)

// manualClock is a Clock that moves only when the test moves it.
type manualClock struct {
	mu  sync.Mutex
	now time.Duration
}

func (c *manualClock) Now() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *manualClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now += d
	c.mu.Unlock()
}

// offlineHost returns a Host with cfg's defaults filled in and no socket, no run
// loop: tests and benchmarks drive its match directly.
func offlineHost(t testing.TB, cfg HostConfig) *Host {
	t.Helper()
	cfg, lim, match, err := populateHostConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := &Host{cfg: cfg, lim: lim, grounded: cfg.Mover != nil && cfg.Mover.Grounded(), match: match, log: slog.New(slog.DiscardHandler),
		clock: cfg.Clock, start: cfg.Clock.Now()}
	h.m = newMatch(h)
	return h
}

// discardConn is a memberConn that drops everything.
type discardConn struct{}

func (discardConn) sendDatagram([]byte) error { return nil }
func (discardConn) writeControl([]byte) error { return nil }
func (discardConn) close(quicCode, string)    {}
func (discardConn) remoteAddr() string        { return "" }
func (discardConn) rtt() time.Duration        { return 0 }
