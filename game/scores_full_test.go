package game

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/treadline/treadline/net/wire"
)

// TestFullMatchScoreboard fills a match to the 64-tank maximum with names of the
// longest allowed length: the judge's scoreboard goes out in frames that all fit the
// stream's limit, and a player's match puts the 64 lines back together.
func TestFullMatchScoreboard(t *testing.T) {
	f, r := refereeFight(t, Rules{NoArmour: true, Damage: 60, ScoreLimit: 5})
	for id := uint32(3); id <= wire.MaxScoreLines; id++ {
		name := fmt.Sprintf("%02d", id) + strings.Repeat("ж", (wire.MaxNameLen-2)/2)
		r.Spawned(id, id, name, int(id%4), f.target, 0)
	}
	j := &Judge{ref: r}
	var stream []byte
	for _, m := range j.Outbox(nil) {
		var err error
		if stream, err = wire.AppendFrame(stream, m); err != nil {
			t.Fatalf("outbox: %v", err)
		}
	}
	m := &Match{combat: &matchCombat{}}
	fr := wire.NewFrameReader(bytes.NewReader(stream))
	var last CombatEvent
	for {
		msg, err := fr.Next()
		if err != nil {
			break
		}
		if sc, ok := msg.(*wire.Scores); ok {
			if msg, ok = m.combat.pages.Add(sc); !ok {
				continue
			}
		}
		if ev, ok := EventOf(msg); ok && ev.Kind == CombatScores {
			last = ev
		}
	}
	if len(last.Scores) != wire.MaxScoreLines {
		t.Fatalf("the player's last board has %d lines, want %d", len(last.Scores), wire.MaxScoreLines)
	}
	for _, s := range last.Scores {
		if len(s.Name) < wire.MaxNameLen-1 && s.Name != "shooter" && s.Name != "target" {
			t.Errorf("line %+v: name cut", s)
		}
	}
}
