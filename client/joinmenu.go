package client

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/treadline/treadline/net/wire"
)

// joinRefresh is how often the Join menu looks at what its search found.
const joinRefresh = 250 * time.Millisecond

// joinMenu is the Join screen: the matches found on the local network and on the
// list servers, live, with the list servers' URLs to edit, and the way to type an
// address instead. Enter joins the selected match, asking for a passphrase first
// when it needs one.
type joinMenu struct {
	m      *menu
	s      *Settings
	typed  *menuScreen
	choose func(MenuMode)
	apply  func()
	cfg    *FindConfig
	f      *finder
	sc     *menuScreen
	found  []foundMatch
	errs   []string
	shown  string    // what the rows said last, to rebuild them only on a change
	polled time.Time // when the search was last looked at
}

// joinScreen returns the Join screen over s; typed is the screen that joins a typed
// address; find, if set, starts the search, which runs until the screen is left.
func joinScreen(m *menu, s *Settings, typed *menuScreen, choose func(MenuMode), apply func(), find *FindConfig) *menuScreen {
	j := &joinMenu{m: m, s: s, typed: typed, choose: choose, apply: apply, cfg: find}
	j.sc = &menuScreen{title: "Join a match", hint: "↑↓ choose · Enter select · Esc back", refresh: j.refresh, leave: j.stop}
	j.restart()
	j.rebuild()
	return j.sc
}

// restart (re)starts the search with the list servers in the settings.
func (j *joinMenu) restart() {
	j.stop()
	if j.cfg != nil {
		j.f = startFinder(*j.cfg, j.s.Lists)
	}
	j.polled = time.Time{}
}

// stop ends the search.
func (j *joinMenu) stop() {
	if j.f != nil {
		j.f.close()
		j.f = nil
	}
}

// refresh looks at the search (at most every joinRefresh) and rebuilds the rows when
// what they say changed.
func (j *joinMenu) refresh() bool {
	if j.f == nil {
		return false
	}
	if now := j.f.cfg.Now(); now.Sub(j.polled) >= joinRefresh {
		j.polled = now
	} else {
		return false
	}
	j.found, j.errs = j.f.found()
	return j.rebuild()
}

// rebuild makes the rows from what was found, keeping the selection on the same
// match or item, and reports whether anything changed.
func (j *joinMenu) rebuild() bool {
	sc := j.sc
	keep := ""
	if sc.sel < len(sc.items) {
		keep = sc.items[sc.sel].label + "\x00" + sc.items[sc.sel].key
	}
	var items []menuItem
	for _, fm := range j.found {
		items = append(items, menuItem{label: fm.Name, key: fm.Key(), value: func() string { return matchSummary(fm) },
			act: func() { j.pick(fm) }, about: trustNote(fm)})
	}
	if len(j.found) == 0 {
		items = append(items, menuItem{label: "No matches found yet", value: func() string { return "Enter: type an address" },
			act: func() { j.m.push(j.typed) }})
	}
	status := j.status()
	items = append(items,
		menuItem{label: "Join as", kind: itemChoice, value: func() string { return joinAs(j.s.Last.JoinObserve) },
			change: func(int) { j.s.Last.JoinObserve = !j.s.Last.JoinObserve; j.apply() },
			about:  "←→ a player with a tank, or an observer: no tank, a camera that follows any tank or flies free"},
		menuItem{label: "Looking on", value: func() string { return status }, act: func() {}},
		menuItem{label: "List servers", kind: itemText, text: &j.s.Lists, maxLen: MaxListsLen, empty: "none",
			commit: func() { j.s.Normalize(); j.apply(); j.restart() }},
		menuItem{label: "Type an address…", act: func() { j.m.push(j.typed) }},
		menuItem{label: "Back", act: func() { j.m.pop() }},
	)
	var b strings.Builder
	for _, it := range items {
		v := ""
		if it.value != nil {
			v = it.value()
		}
		fmt.Fprintf(&b, "%s\x00%s\x00%s\n", it.label, it.key, v)
	}
	if b.String() == j.shown {
		return false
	}
	j.shown = b.String()
	sc.items, sc.sel = items, 0
	for i, it := range items {
		if it.label+"\x00"+it.key == keep {
			sc.sel = i
		}
	}
	return true
}

// joinAs is the "Join as" row's value.
func joinAs(observe bool) string {
	if observe {
		return "observer (no tank)"
	}
	return "player"
}

// status is the "Looking on" row: where the search looks, or its first problem.
func (j *joinMenu) status() string {
	switch {
	case j.f == nil:
		return "nowhere (type an address)"
	case len(j.errs) == 1:
		return clipShown(j.errs[0], false)
	case len(j.errs) > 1:
		return clipShown(fmt.Sprintf("%d problems: %s", len(j.errs), j.errs[0]), false)
	}
	return j.f.sources()
}

// pick joins fm: at once, or after asking for its passphrase.
func (j *joinMenu) pick(fm foundMatch) {
	if fm.Version != int(wire.Version) {
		j.m.note = fmt.Sprintf("%s runs another version of Treadline (protocol %d, this one %d): join another match.",
			fm.Name, fm.Version, wire.Version)
		return
	}
	join := func() {
		j.s.Last.JoinAddr, j.s.Last.JoinVia, j.s.Last.JoinName = fm.Join(), fm.Source, fm.Name
		j.choose(MenuJoin)
	}
	if !fm.Passphrase {
		j.s.Last.JoinPass = ""
		join()
		return
	}
	askPassphrase(j.m, j.s, fm.Name, join)
}

// matchSummary is a found match's row: address, map, players, passphrase, ping, where
// found. The address tells apart matches of one name (two hosts on one machine).
func matchSummary(fm foundMatch) string {
	parts := []string{fm.Addr, fm.Map, fmt.Sprintf("%d/%d", fm.Players, fm.Capacity)}
	if fm.Passphrase {
		parts = append(parts, "passphrase")
	}
	if fm.Version != int(wire.Version) {
		parts = append(parts, "another version")
	}
	switch {
	case fm.problem != "":
		parts = append(parts, fm.problem)
	case fm.measured:
		parts = append(parts, fmt.Sprintf("ping %d ms", max(1, fm.Ping.Round(time.Millisecond).Milliseconds())))
	default:
		parts = append(parts, "ping …")
	}
	return strings.Join(append(parts, sourceName(fm.Source)), " · ")
}

// sourceName names where a match was found, short: "this network" or the list
// server's host.
func sourceName(src string) string {
	if src == "lan" {
		return "this network"
	}
	if u, err := url.Parse(src); err == nil && u.Host != "" {
		src = u.Host
	}
	if r := []rune(src); len(r) > 32 {
		return string(r[:31]) + "…"
	}
	return src
}

// trustNote says how far a found match is trusted, for the hint.
func trustNote(fm foundMatch) string {
	if fm.Source == "lan" {
		return "found on this network: trusted as far as this network is · Enter join"
	}
	return "listed by " + sourceName(fm.Source) + ", which checked the host's certificate · Enter join"
}
