package wire

import (
	"encoding/binary"
	"fmt"
)

// MaxScoreLines is the most lines a Scores message carries.
const MaxScoreLines = 64

// ScoreLine is one player's line on the scoreboard.
type ScoreLine struct {
	// Owner is the player's peer; Name the player's or bot's name (1…MaxNameLen bytes).
	Owner PlayerID
	Name  string
	// Team is the player's team (0: none).
	Team uint8
	// Kills and Deaths count this match's destroyed enemies and own losses.
	Kills, Deaths uint16
}

// Scores is the host's scoreboard and match clock, sent to every peer on the reliable
// stream when it changes. Layout: header, host time i64 µs, flags u8 (bit 0: the match
// is over; bit 1: it has a time limit), next match i64 µs, end of the match i64 µs,
// line count u8 (≤ 64), then per line owner u16, team u8, kills u16, deaths u16, name
// (u8 length, UTF-8): 28 + Σ(8 + len(name)) bytes.
type Scores struct {
	// Time is when the host sent it, host clock, s.
	Time float64
	// Over reports the match has ended; the next starts at Until (host clock, s).
	Over  bool
	Until float64
	// Limited reports a time limit; the match ends at Ends (host clock, s).
	Limited bool
	Ends    float64
	// Lines is the scoreboard, best first.
	Lines []ScoreLine
}

// Type returns MsgScores.
func (m *Scores) Type() MsgType { return MsgScores }

// Length returns the encoded size.
func (m *Scores) Length() int {
	n := HeaderSize + 8 + 1 + 8 + 8 + 1
	for _, l := range m.Lines {
		n += 8 + len(l.Name)
	}
	return n
}

// Append appends the encoded message.
func (m *Scores) Append(b []byte) ([]byte, error) {
	out, err := m.append(appendHeader(b, MsgScores))
	if err != nil {
		return b, fmt.Errorf("wire: scores: %w", err)
	}
	return out, nil
}

func (m *Scores) append(b []byte) ([]byte, error) {
	if len(m.Lines) > MaxScoreLines {
		return b, fmt.Errorf("%d lines, limit %d: %w", len(m.Lines), MaxScoreLines, ErrTooLong)
	}
	b, err := appendClock(b, "time", m.Time)
	if err != nil {
		return b, err
	}
	var flags byte
	if m.Over {
		flags |= 1
	}
	if m.Limited {
		flags |= 2
	}
	b = append(b, flags)
	if b, err = appendClock(b, "next match", m.Until); err != nil {
		return b, err
	}
	if b, err = appendClock(b, "match end", m.Ends); err != nil {
		return b, err
	}
	b = append(b, byte(len(m.Lines)))
	for _, l := range m.Lines {
		if err := CheckName(l.Name); err != nil {
			return b, err
		}
		b = binary.BigEndian.AppendUint16(b, uint16(l.Owner))
		b = append(b, l.Team)
		b = binary.BigEndian.AppendUint16(b, l.Kills)
		b = binary.BigEndian.AppendUint16(b, l.Deaths)
		b = appendString(b, l.Name)
	}
	return b, nil
}

func parseScores(b []byte) (*Scores, int, error) {
	if err := checkHeader(b, MsgScores); err != nil {
		return nil, 0, err
	}
	r := reader{b: b, off: HeaderSize, ctx: "scores"}
	m := &Scores{}
	m.Time = decodeClock(&r, "time")
	flags := r.u8()
	m.Over, m.Limited = flags&1 != 0, flags&2 != 0
	m.Until = decodeClock(&r, "next match")
	m.Ends = decodeClock(&r, "match end")
	n := int(r.u8())
	if r.err == nil && (flags > 3 || n > MaxScoreLines) {
		r.fail(fmt.Errorf("flags %#x, %d lines: %w", flags, n, ErrInvalid))
	}
	for i := 0; i < n && r.err == nil; i++ {
		var l ScoreLine
		l.Owner = PlayerID(r.u16())
		l.Team = r.u8()
		l.Kills = r.u16()
		l.Deaths = r.u16()
		l.Name = r.str("name", MaxNameLen)
		if r.err == nil && l.Name == "" {
			r.fail(fmt.Errorf("empty name: %w", ErrInvalid))
		}
		m.Lines = append(m.Lines, l)
	}
	if r.err != nil {
		return nil, 0, r.err
	}
	return m, r.off, nil
}
