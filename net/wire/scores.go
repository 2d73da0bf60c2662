package wire

import (
	"encoding/binary"
	"fmt"
)

// MaxScoreLines is the most lines a scoreboard holds: one per tank of a full match.
const MaxScoreLines = 512

// maxNarrowLines is the most lines a Scores message counts in a byte; a longer board
// (or a page of one) counts them in u16s (flag bit 4).
const maxNarrowLines = 255

// ScoreLine is one player's line on the scoreboard.
type ScoreLine struct {
	// Owner is the player's peer; Name the player's or bot's name (1…MaxNameLen bytes).
	Owner PlayerID
	Name  string
	// Team is the player's team (0: none).
	Team uint8
	// Kills and Deaths count this match's destroyed enemies and own losses.
	Kills, Deaths uint16
	// Hits and Shots count this match's hits on enemies and shots fired.
	Hits, Shots uint16
	// Ping is the player's link as the host measures it: the round trip in ms
	// (1…PingMax), PingHost for the host's own player, PingBot for a bot; 0 when the
	// line says nothing of it.
	Ping uint16
}

// ScoreLine.Ping's codes besides a round trip.
const (
	// PingMax is the longest round trip a line carries, ms; longer ones are capped.
	PingMax = 0xFFFD
	// PingHost marks the host's own player (no network between).
	PingHost = 0xFFFE
	// PingBot marks a tank with no player of its own.
	PingBot = 0xFFFF
)

// Scores is the host's scoreboard and match clock, sent to every peer on the reliable
// stream when it changes. Layout: header, host time i64 µs, flags u8 (bit 0: the match
// is over; bit 1: it has a time limit; bit 2: a page of a longer board; bit 3: the
// lines carry hits and shots; bit 4: the counts are u16; bit 5: the lines carry
// pings), next match i64 µs, end of the match i64 µs, line count u8 (≤ 255), with
// bit 2 the index of the page's first line u8 and the board's line count u8, then
// per line owner u16, team u8, kills u16, deaths u16, with bit 3 hits u16 and shots
// u16, with bit 5 ping u16, name (u8 length, UTF-8): 28 (30 paged) + Σ(8 (+4) (+2) +
// len(name)) bytes. A board of more than 255 lines (at most
// MaxScoreLines) counts, indexes and totals in u16s (bit 4): 29 (33 paged) bytes
// before the lines. A board longer than one frame travels as pages (SplitScores), in
// order, each with the same Time; ScoresAssembler puts them back together.
type Scores struct {
	// Time is when the host sent it, host clock, s.
	Time float64
	// Over reports the match has ended; the next starts at Until (host clock, s).
	Over  bool
	Until float64
	// Limited reports a time limit; the match ends at Ends (host clock, s).
	Limited bool
	Ends    float64
	// Lines is the scoreboard, best first: on a page, lines First to First+len(Lines)
	// of a board of Total lines. Total zero: the whole board is Lines.
	Lines        []ScoreLine
	First, Total uint16
}

// paged reports whether m is a page of a longer board.
func (m *Scores) paged() bool { return m.Total != 0 }

// wide reports whether m counts its lines in u16s: whether its board has more lines
// than a byte counts.
func (m *Scores) wide() bool { return len(m.Lines) > maxNarrowLines || m.Total > maxNarrowLines }

// accuracy reports whether m's lines carry hits and shots: whether any is counted.
func (m *Scores) accuracy() bool {
	for _, l := range m.Lines {
		if l.Hits != 0 || l.Shots != 0 {
			return true
		}
	}
	return false
}

// pings reports whether m's lines carry pings: whether any says one.
func (m *Scores) pings() bool {
	for _, l := range m.Lines {
		if l.Ping != 0 {
			return true
		}
	}
	return false
}

// scoreLineSize is the size of line l on the wire, with hits and shots when acc,
// with its ping when ping.
func scoreLineSize(l ScoreLine, acc, ping bool) int {
	n := 8 + len(l.Name)
	if acc {
		n += 4
	}
	if ping {
		n += 2
	}
	return n
}

// Type returns MsgScores.
func (m *Scores) Type() MsgType { return MsgScores }

// Length returns the encoded size.
func (m *Scores) Length() int {
	n := HeaderSize + 8 + 1 + 8 + 8 + 1
	if m.paged() {
		n += 2
	}
	if m.wide() {
		n++
		if m.paged() {
			n += 2
		}
	}
	acc, ping := m.accuracy(), m.pings()
	for _, l := range m.Lines {
		n += scoreLineSize(l, acc, ping)
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
	if m.paged() && (m.Total > MaxScoreLines || int(m.First)+len(m.Lines) > int(m.Total)) {
		return b, fmt.Errorf("page of lines %d+%d of %d, limit %d: %w", m.First, len(m.Lines), m.Total, MaxScoreLines, ErrInvalid)
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
	if m.paged() {
		flags |= 4
	}
	acc := m.accuracy()
	if acc {
		flags |= 8
	}
	wide := m.wide()
	if wide {
		flags |= 16
	}
	ping := m.pings()
	if ping {
		flags |= 32
	}
	b = append(b, flags)
	if b, err = appendClock(b, "next match", m.Until); err != nil {
		return b, err
	}
	if b, err = appendClock(b, "match end", m.Ends); err != nil {
		return b, err
	}
	b = appendCount(b, len(m.Lines), wide)
	if m.paged() {
		b = appendCount(b, int(m.First), wide)
		b = appendCount(b, int(m.Total), wide)
	}
	for _, l := range m.Lines {
		if err := CheckName(l.Name); err != nil {
			return b, err
		}
		b = binary.BigEndian.AppendUint16(b, uint16(l.Owner))
		b = append(b, l.Team)
		b = binary.BigEndian.AppendUint16(b, l.Kills)
		b = binary.BigEndian.AppendUint16(b, l.Deaths)
		if acc {
			b = binary.BigEndian.AppendUint16(b, l.Hits)
			b = binary.BigEndian.AppendUint16(b, l.Shots)
		}
		if ping {
			b = binary.BigEndian.AppendUint16(b, l.Ping)
		}
		b = appendString(b, l.Name)
	}
	return b, nil
}

// parseScoreLine reads one line of a board whose flags byte is flags; r.err says
// whether it could.
func parseScoreLine(r *reader, flags uint8) ScoreLine {
	var l ScoreLine
	l.Owner = PlayerID(r.u16())
	l.Team = r.u8()
	l.Kills = r.u16()
	l.Deaths = r.u16()
	if flags&8 != 0 {
		l.Hits, l.Shots = r.u16(), r.u16()
	}
	if flags&32 != 0 {
		l.Ping = r.u16()
	}
	l.Name = r.name("name", MaxNameLen)
	return l
}

// parsePage reads a board's page (flag bit 2) of n lines, and refuses u16 counts
// (flag bit 4) where u8s would do.
func (m *Scores) parsePage(r *reader, flags uint8, n int) {
	wide := flags&16 != 0
	if flags&4 != 0 {
		m.First, m.Total = uint16(readCount(r, wide)), uint16(readCount(r, wide))
		if r.err == nil && (m.Total == 0 || m.Total > MaxScoreLines || int(m.First)+n > int(m.Total)) {
			r.fail(fmt.Errorf("page of lines %d+%d of %d: %w", m.First, n, m.Total, ErrInvalid))
		}
	}
	if r.err == nil && wide && n <= maxNarrowLines && m.Total <= maxNarrowLines {
		r.fail(fmt.Errorf("u16 counts for %d lines of %d: %w", n, m.Total, ErrInvalid)) // one encoding per board
	}
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
	n := readCount(&r, flags&16 != 0)
	if r.err == nil && (flags > 63 || n > MaxScoreLines) {
		r.fail(fmt.Errorf("flags %#x, %d lines: %w", flags, n, ErrInvalid))
	}
	m.parsePage(&r, flags, n)
	for i := 0; i < n && r.err == nil; i++ {
		m.Lines = append(m.Lines, parseScoreLine(&r, flags))
	}
	if r.err == nil && flags&8 != 0 && !m.accuracy() {
		r.fail(fmt.Errorf("hits and shots flagged, none counted: %w", ErrInvalid)) // one encoding per board
	}
	if r.err == nil && flags&32 != 0 && !m.pings() {
		r.fail(fmt.Errorf("pings flagged, none said: %w", ErrInvalid))
	}
	if r.err != nil {
		return nil, 0, r.err
	}
	return m, r.off, nil
}

// MaxScoresPage is the most lines SplitScores puts on one page: with hits, shots,
// pings and names of MaxNameLen bytes and u16 counts, 33 + 21 × 46 = 999 bytes fit a
// MaxFrameSize frame.
const MaxScoresPage = (MaxFrameSize - (HeaderSize + 8 + 1 + 8 + 8 + 2 + 4)) / (14 + MaxNameLen)

// appendCount appends a line count or index: u16 when wide, else u8.
func appendCount(b []byte, n int, wide bool) []byte {
	if wide {
		return binary.BigEndian.AppendUint16(b, uint16(n))
	}
	return append(b, byte(n))
}

// readCount reads a line count or index: u16 when wide, else u8.
func readCount(r *reader, wide bool) int {
	if wide {
		return int(r.u16())
	}
	return int(r.u8())
}

// SplitScores appends m to dst as it travels: m itself when it fits one frame,
// otherwise pages of at most MaxScoresPage lines, in order, each carrying m's clock.
// The pages share m's lines (they are not copied).
func SplitScores(dst []*Scores, m *Scores) []*Scores {
	if m.Length() <= MaxFrameSize || len(m.Lines) > MaxScoreLines {
		return append(dst, m)
	}
	for first := 0; first < len(m.Lines); first += MaxScoresPage {
		p := *m
		p.Lines = m.Lines[first:min(first+MaxScoresPage, len(m.Lines))]
		p.First, p.Total = uint16(first), uint16(len(m.Lines))
		dst = append(dst, &p)
	}
	return dst
}

// ScoresAssembler puts the pages of a board back together (see SplitScores). The
// zero value is ready. Not safe for concurrent use.
type ScoresAssembler struct {
	board Scores
	have  bool // board holds the pages of a board so far
}

// Add takes the next Scores message m and returns the whole board once it is
// complete: a message that is not a page at once, a page when it completes its
// board. A page out of order (another board's, or not the next one) drops the
// board in progress; the host sends a new one at the next change. The board
// returned is the assembler's own until the next Add.
func (a *ScoresAssembler) Add(m *Scores) (*Scores, bool) {
	if !m.paged() {
		a.have = false
		return m, true
	}
	if m.First == 0 {
		a.board = *m
		a.board.Lines = append(a.board.Lines[:0:0], m.Lines...)
		a.have = true
	} else if !a.have || a.board.Time != m.Time || a.board.Total != m.Total || int(m.First) != len(a.board.Lines) {
		a.have = false
		return nil, false
	} else {
		a.board.Lines = append(a.board.Lines, m.Lines...)
	}
	if len(a.board.Lines) < int(a.board.Total) {
		return nil, false
	}
	a.have = false
	a.board.First, a.board.Total = 0, 0
	return &a.board, true
}
