package wire

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// fullBoard is a board of n lines whose names are all MaxNameLen bytes long.
func fullBoard(n int) *Scores {
	m := &Scores{Time: 12.5, Limited: true, Ends: 300}
	for i := range n {
		name := fmt.Sprintf("%04d", i) + strings.Repeat("é", (MaxNameLen-4)/2)
		m.Lines = append(m.Lines, ScoreLine{Owner: PlayerID(i + 1), Name: name, Team: uint8(i % 4), Kills: uint16(i), Deaths: 1,
			Hits: uint16(2 * i), Shots: uint16(3*i + 1), Ping: [3]uint16{PingBot, PingHost, uint16(40 + i)}[i%3]})
	}
	return m
}

// TestScoresOfAFullMatch sends the scoreboard of a full match, MaxScoreLines tanks
// with names of the longest allowed length, over a stream: every page fits a frame, and the
// pages read back give the board sent.
func TestScoresOfAFullMatch(t *testing.T) {
	for _, n := range []int{0, 1, MaxScoresPage, MaxScoresPage + 1, 25, 64, 255, 256, MaxScoreLines} {
		board := fullBoard(n)
		var stream []byte
		for _, p := range SplitScores(nil, board) {
			var err error
			if stream, err = AppendFrame(stream, p); err != nil {
				t.Fatalf("%d lines: %v", n, err)
			}
		}
		fr := NewFrameReader(bytes.NewReader(stream))
		var a ScoresAssembler
		var got *Scores
		pages := 0
		for {
			m, err := fr.Next()
			if err != nil {
				break
			}
			pages++
			if b, ok := a.Add(m.(*Scores)); ok {
				got = b
			}
		}
		if got == nil {
			t.Fatalf("%d lines in %d pages: no board came back", n, pages)
		}
		if !reflect.DeepEqual(got.Lines, board.Lines) && !(len(got.Lines) == 0 && len(board.Lines) == 0) ||
			got.Time != board.Time || got.Ends != board.Ends || got.Total != 0 {
			t.Errorf("%d lines in %d pages: came back as %d lines, time %v, total %d", n, pages, len(got.Lines), got.Time, got.Total)
		}
		if want := max(1, (n+MaxScoresPage-1)/MaxScoresPage); pages != want {
			t.Errorf("%d lines: %d pages, want %d", n, pages, want)
		}
	}
}

// TestScoresAssemblerDropsStrays checks that a page out of order, or of another
// board, never yields a board with lines missing or mixed.
func TestScoresAssemblerDropsStrays(t *testing.T) {
	a1 := SplitScores(nil, fullBoard(MaxScoreLines))
	b := fullBoard(MaxScoreLines)
	b.Time = 13
	b2 := SplitScores(nil, b)
	for _, c := range []struct {
		name  string
		pages []*Scores
	}{
		{"second page first", []*Scores{a1[1], a1[0], a1[2]}},
		{"pages of two boards", []*Scores{a1[0], a1[1], b2[2]}},
		{"a page missing", []*Scores{a1[0], a1[2]}},
	} {
		var a ScoresAssembler
		for _, p := range c.pages {
			if got, ok := a.Add(p); ok {
				t.Errorf("%s: a board of %d lines came back", c.name, len(got.Lines))
			}
		}
	}
	var a ScoresAssembler // after strays, a whole board still comes through
	a.Add(a1[1])
	var got *Scores
	for _, p := range b2 {
		got, _ = a.Add(p)
	}
	if got == nil || len(got.Lines) != MaxScoreLines || got.Time != 13 {
		t.Errorf("a whole board after a stray page: %+v", got)
	}
}

// FuzzScoresPages decodes two messages from fuzzed bytes and feeds every Scores
// among them to an assembler: it never panics, and a board it returns is whole (no
// page marks, at most MaxScoreLines lines, every name valid).
func FuzzScoresPages(f *testing.F) {
	for _, p := range SplitScores(nil, fullBoard(MaxScoreLines)) {
		b, _ := p.Append(nil)
		f.Add(b, b)
	}
	pages := SplitScores(nil, fullBoard(30))
	p0, _ := pages[0].Append(nil)
	p1, _ := pages[1].Append(nil)
	f.Add(p0, p1)
	f.Fuzz(func(t *testing.T, x, y []byte) {
		var a ScoresAssembler
		for _, b := range [][]byte{x, y} {
			m, _, err := Parse(b)
			if err != nil {
				continue
			}
			s, ok := m.(*Scores)
			if !ok {
				continue
			}
			got, ok := a.Add(s)
			if !ok {
				continue
			}
			if got.Total != 0 || got.First != 0 || len(got.Lines) > MaxScoreLines {
				t.Fatalf("board %d lines, first %d total %d", len(got.Lines), got.First, got.Total)
			}
			for _, l := range got.Lines {
				if err := CheckName(l.Name); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}

// TestScoresPings: a board whose lines say no ping reads as before pings were
// carried (no flag bit 5, no bytes), and bit 5 on lines that say none is refused, so
// every board has one encoding.
func TestScoresPings(t *testing.T) {
	plain := unhex(t, "05 10 000000000016e360 00 0000000000000000 0000000000000000 01 0001 02 0003 0001 03 416461")
	m := &Scores{Time: 1.5, Lines: []ScoreLine{{Owner: 1, Name: "Ada", Team: 2, Kills: 3, Deaths: 1}}}
	if b, err := m.Append(nil); err != nil || !bytes.Equal(b, plain) {
		t.Errorf("a board without pings: % x, %v; want % x", b, err, plain)
	}
	none := unhex(t, "05 10 000000000016e360 20 0000000000000000 0000000000000000 01 0001 02 0003 0001 0000 03 416461")
	if _, _, err := Parse(none); !errors.Is(err, ErrInvalid) {
		t.Errorf("pings flagged, none said: %v, want ErrInvalid", err)
	}
	m.Lines[0].Ping = PingHost
	b, err := m.Append(nil)
	if err != nil || len(b) != m.Length() || len(b) != len(plain)+2 {
		t.Fatalf("a board with a ping: %d bytes (Length %d), %v", len(b), m.Length(), err)
	}
	got, _, err := Parse(b)
	if err != nil || got.(*Scores).Lines[0].Ping != PingHost {
		t.Errorf("read back: %+v, %v", got, err)
	}
}

// FuzzScoresPing decodes fuzzed Scores bodies, with and without pings: what parses
// says a ping exactly when flag bit 5 is set, and encodes back to the same bytes.
func FuzzScoresPing(f *testing.F) {
	for _, p := range SplitScores(nil, fullBoard(40)) {
		b, _ := p.Append(nil)
		f.Add(b)
	}
	f.Add(unhex(f, "04 10 000000000016e360 20 0000000000000000 0000000000000000 01 0001 02 0003 0001 0057 03 416461"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, n, err := Parse(b)
		if err != nil {
			return
		}
		s, ok := m.(*Scores)
		if !ok {
			return
		}
		if flagged := b[HeaderSize+8]&32 != 0; flagged != s.pings() {
			t.Fatalf("flag bit 5 %v, lines say a ping %v", flagged, s.pings())
		}
		out, err := s.Append(nil)
		if err != nil || !bytes.Equal(out, b[:n]) {
			t.Fatalf("re-encoded % x (%v), parsed % x", out, err, b[:n])
		}
	})
}

// TestScoresOneEncoding: a board of at most 255 lines counts them in bytes; the same
// board with u16 counts (flag bit 4) is refused, so every board has one encoding.
func TestScoresOneEncoding(t *testing.T) {
	narrow := unhex(t, "05 10 000000000016e360 00 0000000000000000 0000000000000000 01 0001 02 0003 0001 03 416461")
	if _, _, err := Parse(narrow); err != nil {
		t.Fatalf("narrow board: %v", err)
	}
	wide := unhex(t, "05 10 000000000016e360 10 0000000000000000 0000000000000000 0001 0001 02 0003 0001 03 416461")
	if _, _, err := Parse(wide); !errors.Is(err, ErrInvalid) {
		t.Errorf("one line counted in a u16: %v, want ErrInvalid", err)
	}
	over := unhex(t, "05 10 000000000016e360 14 0000000000000000 0000000000000000 0001 0000 0201 0001 02 0003 0001 03 416461")
	if _, _, err := Parse(over); !errors.Is(err, ErrInvalid) {
		t.Errorf("a page of a board of %d lines: %v, want ErrInvalid", MaxScoreLines+1, err)
	}
}
