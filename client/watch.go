package client

import (
	"fmt"
	"strings"

	"github.com/treadline/treadline/game"
)

// watchGrace is how long a named -watch tank may be missing from the match before the
// player is told, seconds of match time: remote tanks appear over the first
// updates after joining.
const watchGrace = 3.0

// watchReport tells the player once when the tank RunConfig.Watch names never showed
// up, so the camera following the player's own tank is not a silent surprise.
type watchReport struct {
	done bool
}

// check runs each frame with the match time since start.
func (w *watchReport) check(l *matchScreen, elapsed float64) {
	name := l.cfg.Watch
	if w.done || name == "" || elapsed < watchGrace {
		return
	}
	w.done = true
	if l.scene.Watched(&l.snap) != nil {
		return
	}
	msg := missingWatchMessage(name, &l.snap)
	l.log.Warn(msg)
	l.scene.Flash(msg)
}

// missingWatchMessage says that no tank in snap is called name, and which are.
func missingWatchMessage(name string, snap *game.Snapshot) string {
	var names []string
	for i := range snap.Tanks {
		if i != snap.Self {
			names = append(names, snap.Tanks[i].Name)
		}
	}
	if name == "*" {
		return "-watch *: no other tank in the match; the camera follows yours"
	}
	others := "there are no other tanks"
	if len(names) > 0 {
		others = "tanks here: " + strings.Join(names, ", ")
	}
	return fmt.Sprintf("-watch %s: no tank has that name (%s); the camera follows yours", name, others)
}
