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
	r.Tick(10) // past the pace of a board this size (boardPace)
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

// TestLargeBoardPaced: the scoreboard of a large match goes to every player at most
// at boardPace bytes a second, changes held meanwhile joined into the next board; a
// small board goes at every change, and the end of a match at once.
func TestLargeBoardPaced(t *testing.T) {
	f, r := refereeFight(t, combat.Rules{NoArmour: true, Damage: 100, ScoreLimit: 1})
	boards := func() (n, lines int) {
		for _, m := range r.Outbox(nil) {
			if sc, ok := m.Message.(*wire.Scores); ok && sc.First == 0 {
				n, lines = n+1, int(sc.Total)
				if sc.Total == 0 {
					lines = len(sc.Lines)
				}
			}
		}
		return n, lines
	}
	boards()
	// A small match: every new line is its own board.
	for id := uint32(3); id < 13; id++ {
		r.Spawned(id, id, fmt.Sprintf("p%03d", id), int(id%2), f.target, 0.05)
	}
	if n, lines := boards(); n != 10 || lines != 12 {
		t.Errorf("ten players joining a small match: %d boards, the last of %d lines; want 10 and 12", n, lines)
	}
	// 500 players with names of 24 letters join within half a second: the board
	// outgrows boardPromptBytes and then waits for its pace.
	for id := uint32(13); id <= wire.MaxScoreLines; id++ {
		r.Spawned(id, id, fmt.Sprintf("player %03d of a battle ..", id), int(id%2), f.target, 0.1+float64(id)/1000)
	}
	n, lines := boards()
	if n < 10 || n > 60 || lines >= wire.MaxScoreLines {
		t.Errorf("500 joining in half a second: %d boards, the last of %d lines; want a few dozen, none whole", n, lines)
	}
	wait := float64(r.boardBytes) / boardPace
	r.Tick(0.7)
	if n, _ := boards(); n != 0 {
		t.Errorf("%d boards before the pace allows (%.2f s after the last)", n, wait)
	}
	r.Tick(r.announced + wait + 0.01)
	if n, lines := boards(); n != 1 || lines != wire.MaxScoreLines {
		t.Errorf("at the pace: %d boards, the last of %d lines; want one of %d", n, lines, wire.MaxScoreLines)
	}
	if size, wait := r.boardBytes, float64(r.boardBytes)/boardPace; size < 10_000 || wait > 5 {
		t.Errorf("a full board of %d bytes waits %.2f s; want 10–24 kB, at most 5 s", size, wait)
	}
	// A kill well within the pace ends the match (score limit 1): the final board
	// goes at once.
	s, c := f.shoot(t, 1, 3)
	if r.announced+float64(r.boardBytes)/boardPace < c.Time+0.2 {
		t.Fatalf("the kill at %.2f s comes after the pace (%.2f s)", c.Time, r.announced+float64(r.boardBytes)/boardPace)
	}
	r.fire(s, 3.1)
	if v := r.claim(c, c.Time+0.1, f.link); v.Reason != combat.Accepted {
		t.Fatal(v.Reason)
	}
	r.Tick(c.Time + 0.2)
	if n, lines := boards(); n != 1 || lines != wire.MaxScoreLines || !r.over {
		t.Errorf("the match's end (over: %v): %d boards of %d lines at once, want one of %d", r.over, n, lines, wire.MaxScoreLines)
	}
}
