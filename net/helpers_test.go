package net

import (
	"log/slog"
	"testing"
	"time"
)

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
