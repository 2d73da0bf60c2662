package client

import (
	"testing"

	"github.com/treadline/treadline/game"
)

func TestMissingWatchMessage(t *testing.T) {
	snap := game.Snapshot{Self: 0, Tanks: []game.TankView{{Name: "me"}, {Name: "Ariete"}, {Name: "Arjun"}}}
	if got, want := missingWatchMessage("nobody", &snap),
		"-watch nobody: no tank has that name (tanks here: Ariete, Arjun); the camera follows yours"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	alone := game.Snapshot{Self: 0, Tanks: []game.TankView{{Name: "me"}}}
	if got, want := missingWatchMessage("nobody", &alone),
		"-watch nobody: no tank has that name (there are no other tanks); the camera follows yours"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
