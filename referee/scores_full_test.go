package referee

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/net/wire"
)

// TestFullMatchScoreboard fills a match to the 512-tank maximum with names of the
// longest allowed length: the referee's scoreboard goes out in frames that all fit
// the stream's limit, and a peer puts the 512 lines back together.
func TestFullMatchScoreboard(t *testing.T) {
	f, r := refereeFight(t, combat.Rules{NoArmour: true, Damage: 60, ScoreLimit: 5})
	for id := uint32(3); id <= wire.MaxScoreLines; id++ {
		name := fmt.Sprintf("%04d", id) + strings.Repeat("ж", (wire.MaxNameLen-4)/2)
		r.Spawned(id, id, name, int(id%4), f.target, 0)
	}
	var stream []byte
	for _, m := range r.Outbox(nil) {
		var err error
		if stream, err = wire.AppendFrame(stream, m.Message); err != nil {
			t.Fatalf("outbox: %v", err)
		}
	}
	var pages wire.ScoresAssembler
	fr := wire.NewFrameReader(bytes.NewReader(stream))
	var last combat.Event
	for {
		msg, err := fr.Next()
		if err != nil {
			break
		}
		if sc, ok := msg.(*wire.Scores); ok {
			if msg, ok = pages.Add(sc); !ok {
				continue
			}
		}
		if ev, ok := combat.EventOf(msg); ok && ev.Kind == combat.EventScores {
			last = ev
		}
	}
	if len(last.Scores) != wire.MaxScoreLines {
		t.Fatalf("the peer's last board has %d lines, want %d", len(last.Scores), wire.MaxScoreLines)
	}
}
