package game

import (
	"testing"
	"time"

	"github.com/treadline/treadline/net"
)

// TestNetStatsOf: the link's durations reach the HUD as seconds and its counts as
// they are; the counts only the match keeps start at zero.
func TestNetStatsOf(t *testing.T) {
	for _, c := range []struct {
		name string
		in   net.Stats
		want NetStats
	}{
		{"zero", net.Stats{}, NetStats{}},
		{"a remote peer", net.Stats{
			RTT: 104 * time.Millisecond, ClockOffset: -5040 * time.Millisecond, ClockError: 12 * time.Millisecond,
			Silence: 250 * time.Millisecond, Timeout: 6 * time.Second,
			BytesIn: 900, BytesOut: 300, UpdatesIn: 40, UpdatesOut: 10,
			Dropped: 3, Rejected: 2, SendErrors: 1, ClockRejected: 4,
		}, NetStats{
			RTT: 0.104, ClockOffset: -5.04, ClockError: 0.012, Silence: 0.25, Timeout: 6,
			BytesIn: 900, BytesOut: 300, UpdatesIn: 40, UpdatesOut: 10,
			Dropped: 3, Malformed: 2, SendErrors: 1, ClockRejected: 4,
		}},
	} {
		if got := netStatsOf(c.in); got != c.want {
			t.Errorf("%s: netStatsOf = %+v, want %+v", c.name, got, c.want)
		}
	}
}
