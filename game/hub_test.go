package game

import (
	"testing"

	"github.com/treadline/treadline/game/gametest"
)

// newHub returns an in-memory host for a test.
func newHub(t testing.TB, cfg gametest.LoopbackConfig) *gametest.Loopback {
	t.Helper()
	hub, err := gametest.NewLoopback(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return hub
}
