package net

import (
	"testing"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net/wire"
)

// Hooks for the external tests (package net_test), which may import the packages
// that implement net's interfaces (referee's Mover).

// StartHost starts a host on a loopback port, closed when t ends.
func StartHost(t *testing.T, cfg HostConfig) *Host { return testHost(t, cfg) }

// SimHost starts a host on a new in-memory network, for a test in a synctest
// bubble; closed when t ends.
func SimHost(t *testing.T, cfg HostConfig) *Host { return simHost(t, cfg) }

// PipeJoin joins h in process, closed when t ends.
func PipeJoin(t *testing.T, h *Host, cfg ClientConfig) *Client { return pipeJoin(t, h, cfg) }

// SendRaw sends b as a datagram, past the client's own checks.
func (c *Client) SendRaw(b []byte) error { return c.sendRaw(b, false) }

// RawBatch returns a state batch of u alone.
func RawBatch(t *testing.T, u wire.Update) []byte { return rawBatch(t, u) }

// WaitFor polls p until an event matches, or fails t after timeout.
var WaitFor = waitFor

// CheckNoLeaks fails t if goroutines outlive it.
func CheckNoLeaks(t *testing.T) { checkNoLeaks(t) }

// TankAt returns a tank's state at rest at (x, 0, z), turret and gun at 0.
func TankAt(x, z float64) deadreckon.State { return tankAt(x, z) }
