package game

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// NoticeKind says what a Notice reports.
type NoticeKind uint8

// The notice kinds.
const (
	// NoticeChat is a chat line: Who said Text.
	NoticeChat NoticeKind = iota + 1
	// NoticeJoin reports that Who's tank entered the match.
	NoticeJoin
	// NoticeLeave reports that Who's tank left the match; Text says why when the
	// host said ("removed", "owner gone", ...).
	NoticeLeave
	// NoticeTimeout reports that Who's tank was not heard from for
	// Config.RemoveAfter and was removed.
	NoticeTimeout
	// NoticeKill reports that Who destroyed Other's tank; Text may name the weapon.
	NoticeKill
	// NoticeTeam tells the player (Who) the team the host put them on: Team.
	NoticeTeam
)

// String returns the kind's lower-case name.
func (k NoticeKind) String() string {
	switch k {
	case NoticeChat:
		return "chat"
	case NoticeJoin:
		return "join"
	case NoticeLeave:
		return "leave"
	case NoticeTimeout:
		return "timeout"
	case NoticeKill:
		return "kill"
	case NoticeTeam:
		return "team"
	}
	return fmt.Sprintf("NoticeKind(%d)", uint8(k))
}

// Notice is one line of the match's feed: a chat line, or something that happened
// to a player's tank. The client shows the recent ones and lets them fade.
type Notice struct {
	// Kind says what happened.
	Kind NoticeKind
	// Time is the match time it happened, seconds on the local clock (as
	// Snapshot.Time).
	Time float64
	// Who is the chat sender, or the tank the notice is about (the shooter of a
	// kill).
	Who string
	// Team is Who's team, or -1 when unknown.
	Team int
	// Other is the second party: the victim of a kill.
	Other string
	// Text is the chat line, or a detail such as a reason.
	Text string
}

// String renders the notice as one line of plain text, as the feed shows it.
func (n Notice) String() string {
	switch n.Kind {
	case NoticeChat:
		return n.Who + ": " + n.Text
	case NoticeJoin:
		return n.Who + " joined"
	case NoticeLeave:
		if n.Text != "" {
			return n.Who + " left (" + n.Text + ")"
		}
		return n.Who + " left"
	case NoticeTimeout:
		return n.Who + " timed out"
	case NoticeKill:
		if n.Text != "" {
			return n.Who + " destroyed " + n.Other + " (" + n.Text + ")"
		}
		return n.Who + " destroyed " + n.Other
	case NoticeTeam:
		return "You are on team " + TeamName(n.Team)
	}
	return n.Who + " " + n.Text
}

// teamNames names the teams by the colour their tanks wear: team t wears colour t
// modulo their number (0 red, 1 blue, 2 yellow, 3 green).
var teamNames = [...]string{"Red", "Blue", "Yellow", "Green"}

// TeamName returns the name of team t, the colour its tanks wear ("Red", "Blue",
// "Yellow", "Green"); teams wrap, negative ones too.
func TeamName(t int) string {
	n := len(teamNames)
	return teamNames[((t%n)+n)%n]
}

// Feed limits.
const (
	// MaxNotices is how many recent notices a match keeps for Snapshot: enough for a
	// burst of kills in a battle of hundreds of tanks, which the feed counts as one
	// line.
	MaxNotices = 64
	// MaxChatBytes is the longest chat line Chat sends, bytes of UTF-8.
	MaxChatBytes = 200
	// rosterGrace is how long after its first Step a match stays quiet about tanks
	// entering: those are the ones already in the match when it joined.
	rosterGrace = 2.0
)

// ErrEmptyChat reports a chat line with nothing to say.
var ErrEmptyChat = errors.New("game: empty chat line")

// noticeLog is a ring of the last MaxNotices notices.
type noticeLog struct {
	buf  [MaxNotices]Notice
	next int // index the next notice goes to
	n    int // notices held
}

// add records n, dropping the oldest when full.
func (l *noticeLog) add(n Notice) {
	l.buf[l.next] = n
	l.next = (l.next + 1) % MaxNotices
	l.n = min(l.n+1, MaxNotices)
}

// restamp dates every held notice at match time t.
func (l *noticeLog) restamp(t float64) {
	for i := range l.buf {
		l.buf[i].Time = t
	}
}

// appendTo appends the held notices to dst, oldest first.
func (l *noticeLog) appendTo(dst []Notice) []Notice {
	for k := 0; k < l.n; k++ {
		dst = append(dst, l.buf[(l.next-l.n+k+MaxNotices)%MaxNotices])
	}
	return dst
}

// notify adds a notice stamped with the match's current time.
func (m *Match) notify(n Notice) {
	n.Time = m.last
	m.notices.add(n)
}

// announceJoin adds a join notice for t unless the match is still learning of the
// tanks that were there before it, or t is a tank that just left coming back (a
// respawn).
func (m *Match) announceJoin(t *tank, now float64) {
	if m.respawned(t.owner, t.name) {
		return
	}
	if m.started && now-m.startedAt >= rosterGrace {
		m.notify(Notice{Kind: NoticeJoin, Who: t.name, Team: t.team})
	}
}

// Chat sends a line of chat to every player of the match; it comes back to this
// match too, as a NoticeChat. Surrounding blanks are trimmed, line breaks become
// spaces, and a line longer than MaxChatBytes is cut at a character boundary. An
// empty line returns ErrEmptyChat.
func (m *Match) Chat(text string) error {
	text = strings.TrimSpace(strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		return r
	}, text))
	if text == "" {
		return ErrEmptyChat
	}
	if len(text) > MaxChatBytes {
		cut := MaxChatBytes
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut]
	}
	if err := m.link.Chat(text); err != nil {
		return fmt.Errorf("game: chat: %w", err)
	}
	return nil
}

// teamOf returns the team of a tank owned by player owner, or -1 when it owns none.
func (m *Match) teamOf(owner uint32) int {
	me := m.link.ID()
	for _, t := range m.tanks {
		if t.owner == owner || (t.local && owner == me) {
			return t.team
		}
	}
	return -1
}
