package game

import (
	"testing"

	"github.com/treadline/treadline/game/gametest"
)

// newRig returns an in-process host on a manual clock for a test.
func newRig(t testing.TB, cfg gametest.Config) *gametest.Rig {
	t.Helper()
	r, err := gametest.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// join adds a player to r and returns its link.
func join(t testing.TB, r *gametest.Rig) *gametest.Link {
	t.Helper()
	l, err := r.Join()
	if err != nil {
		t.Fatal(err)
	}
	return l
}
