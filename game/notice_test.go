package game

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/physics"
)

// stepAll advances the rig and every match to now.
func stepAll(t *testing.T, rig *gametest.Rig, now float64, ms ...*Match) {
	t.Helper()
	rig.SetNow(now)
	for _, m := range ms {
		if err := m.Step(now, physics.Input{}); err != nil {
			t.Fatalf("step: %v", err)
		}
	}
}

// noticesOf returns m's notices of kind k.
func noticesOf(m *Match, k NoticeKind) []Notice {
	var snap Snapshot
	m.Snapshot(&snap)
	var out []Notice
	for _, n := range snap.Notices {
		if n.Kind == k {
			out = append(out, n)
		}
	}
	return out
}

// TestNoticesJoinLeaveTimeoutChat plays three peers on a Loopback: a late joiner is
// announced (the tanks already there are not), its chat reaches everyone, its
// despawn is announced as a leave, and a peer that falls silent is announced as
// timed out when it is removed.
func TestNoticesJoinLeaveTimeoutChat(t *testing.T) {
	mp := testmaps.Small(t)
	rig := newRig(t, gametest.Config{Link: impair.Link{Latency: 50 * time.Millisecond}})
	a, err := NewMatch(Config{Map: mp, Name: "ann", Seed: 1, RemoveAfter: 3}, join(t, rig))
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewMatch(Config{Map: mp, Name: "bob", Seed: 2, RemoveAfter: 3}, join(t, rig))
	if err != nil {
		t.Fatal(err)
	}
	now := 0.0
	for ; now < 1; now += 1.0 / 30 {
		stepAll(t, rig, now, a, b)
	}
	if j := noticesOf(b, NoticeJoin); len(j) != 0 {
		t.Errorf("bob announces the tanks already there: %v", j)
	}
	for ; now < rosterGrace+0.5; now += 1.0 / 30 {
		stepAll(t, rig, now, a, b)
	}
	c, err := NewMatch(Config{Map: mp, Name: "cyd", Seed: 3, RemoveAfter: 3}, join(t, rig))
	if err != nil {
		t.Fatal(err)
	}
	for end := now + 0.5; now < end; now += 1.0 / 30 {
		stepAll(t, rig, now, a, b, c)
	}
	for _, m := range []*Match{a, b} {
		if j := noticesOf(m, NoticeJoin); len(j) != 1 || j[0].String() != "cyd joined" {
			t.Errorf("join notices %v, want one for cyd", j)
		}
	}
	// ann respawns (a new actor id): not a leave and a join.
	a.Respawn()
	for end := now + respawnGrace + 0.5; now < end; now += 1.0 / 30 {
		stepAll(t, rig, now, a, b, c)
	}
	for _, k := range []NoticeKind{NoticeLeave, NoticeJoin} {
		for _, n := range noticesOf(b, k) {
			if n.Who == "ann" {
				t.Errorf("ann's respawn shows in bob's feed as %q", n.String())
			}
		}
	}
	if err := c.Chat("  hello\nall  "); err != nil {
		t.Fatalf("Chat: %v", err)
	}
	for end := now + 0.3; now < end; now += 1.0 / 30 {
		stepAll(t, rig, now, a, b, c)
	}
	for name, m := range map[string]*Match{"ann": a, "bob": b, "cyd": c} {
		ch := noticesOf(m, NoticeChat)
		if len(ch) != 1 || ch[0].String() != "cyd: hello all" {
			t.Errorf("%s's chat notices %v, want cyd's one line", name, ch)
		}
	}
	// cyd leaves politely: its tank is despawned.
	self, _ := c.Self()
	if err := c.link.Despawn(self); err != nil {
		t.Fatal(err)
	}
	for end := now + respawnGrace + 0.3; now < end; now += 1.0 / 30 {
		stepAll(t, rig, now, a, b)
	}
	if l := noticesOf(a, NoticeLeave); len(l) != 1 || l[0].Who != "cyd" {
		t.Errorf("leave notices %v, want one for cyd", l)
	}
	// bob falls silent: ann removes his tank after RemoveAfter and says so.
	for end := now + 4; now < end; now += 1.0 / 30 {
		stepAll(t, rig, now, a)
	}
	if to := noticesOf(a, NoticeTimeout); len(to) != 1 || to[0].String() != "bob timed out" || to[0].Time < 3 {
		t.Errorf("timeout notices %v, want one for bob", to)
	}
}

// TestChatLines checks what Chat sends: trimmed, one line, cut to MaxChatBytes on a
// character boundary; nothing for an empty line.
func TestChatLines(t *testing.T) {
	link := &scriptLink{}
	m := mustMatch(t, Config{Map: testmaps.Small(t), NoPlayer: true}, link)
	long := strings.Repeat("é", MaxChatBytes) // two bytes each
	for _, c := range []struct{ in, want string }{
		{"hi", "hi"},
		{"\tsay\r\nthis ", "say  this"},
		{long, long[:MaxChatBytes]},
	} {
		link.chat = link.chat[:0]
		if err := m.Chat(c.in); err != nil {
			t.Fatalf("Chat(%q): %v", c.in, err)
		}
		if len(link.chat) != 1 || link.chat[0] != c.want {
			t.Errorf("Chat(%q) sent %q, want %q", c.in, link.chat, c.want)
		}
	}
	if err := m.Chat(" \n "); !errors.Is(err, ErrEmptyChat) {
		t.Errorf("empty chat: %v", err)
	}
}

// TestNoticeLogKeepsTheNewest fills the feed past MaxNotices: the oldest go first.
func TestNoticeLogKeepsTheNewest(t *testing.T) {
	var l noticeLog
	for i := 0; i < MaxNotices+5; i++ {
		l.add(Notice{Kind: NoticeChat, Time: float64(i)})
	}
	got := l.appendTo(nil)
	if len(got) != MaxNotices || got[0].Time != 5 || got[len(got)-1].Time != MaxNotices+4 {
		t.Errorf("kept %d notices from t=%v to t=%v", len(got), got[0].Time, got[len(got)-1].Time)
	}
}
