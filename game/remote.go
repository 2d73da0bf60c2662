package game

import "github.com/treadline/treadline/deadreckon"

// RemoteReckon returns how a match configured by c reckons remote tanks at its start:
// c.Remote with c's algorithm, clamp mode (DefaultClamp unless NoClamp) and latency
// compensation. The lab and the host's hit checker use it to reckon as players do.
func RemoteReckon(c Config) deadreckon.Config {
	r := c.Remote
	r.Algorithm = c.Algorithm
	r.Clamp.Mode = c.Clamp
	if r.Clamp.Mode == deadreckon.ClampNone && !c.NoClamp {
		r.Clamp.Mode = DefaultClamp
	}
	r.CompensateLatency = !c.NoLatencyCompensation
	return r
}
