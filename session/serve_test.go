package session

import (
	"context"
	"testing"

	"github.com/treadline/treadline/internal/testmaps"
)

// TestServeCanceledStopsClean: a host canceled as it starts (tankhost told to stop
// while its bots join) stops cleanly, whichever step the cancellation meets: the
// host closing under the bots' match is a stop, not a failure.
func TestServeCanceledStopsClean(t *testing.T) {
	mp := testmaps.Small(t)
	for i := range 20 {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := Serve(ctx, ServeConfig{Addr: "127.0.0.1:0", Map: mp, Bots: 4, StatsEvery: Off}); err != nil {
			t.Fatalf("run %d: Serve canceled at its start: %v, want nil", i, err)
		}
	}
}
