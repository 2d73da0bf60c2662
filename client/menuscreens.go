package client

import (
	"fmt"
	"github.com/treadline/treadline/game"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/g3n/engine/window"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/render"
)

// onOff names a switch's state.
func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// settingsScreen edits s; apply runs after every change (to save it and to apply
// volume, field of view and the rest at once).
func settingsScreen(m *menu, s *Settings, apply func()) *menuScreen {
	changed := func(f func(step int)) func(int) {
		return func(step int) { f(step); s.Normalize(); apply() }
	}
	return &menuScreen{title: "Settings", items: []menuItem{
		{label: "Name", kind: itemText, text: &s.Name, maxLen: wire.MaxNameLen, commit: apply, empty: game.DefaultName},
		{label: "Team colour", kind: itemChoice, value: func() string { return render.TeamColorName(s.Team) },
			change: changed(func(st int) { s.Team = render.TeamColorIndex(s.Team + st) })},
		{label: "Mouse sensitivity", kind: itemChoice, value: func() string { return fmt.Sprintf("%.1f×", s.MouseSensitivity) },
			change: changed(func(st int) { s.MouseSensitivity = math.Round(10*s.MouseSensitivity+float64(st)) / 10 })},
		{label: "Invert mouse", kind: itemChoice, value: func() string { return onOff(s.InvertMouse) },
			change: changed(func(int) { s.InvertMouse = !s.InvertMouse })},
		{label: "Aim with", kind: itemChoice, value: func() string { return aimWith(s.KeyAim) },
			change: changed(func(int) { s.KeyAim = !s.KeyAim })},
		{label: "Field of view", kind: itemChoice, value: func() string { return fmt.Sprintf("%.0f°", s.FOV) },
			change: changed(func(st int) { s.FOV += 5 * float64(st) })},
		{label: "Graphics quality", kind: itemChoice, value: func() string { return s.Quality },
			change: changed(func(st int) {
				i := slices.Index(Qualities, s.Quality)
				s.Quality = Qualities[max(0, min(len(Qualities)-1, i+st))]
			})},
		{label: "Volume", kind: itemChoice, value: func() string { return fmt.Sprintf("%.0f%%", 100*s.Volume) },
			change: changed(func(st int) { s.Volume = math.Round(10*s.Volume+float64(st)) / 10 })},
		{label: "Sound", kind: itemChoice, value: func() string { return onOff(!s.Mute) },
			change: changed(func(int) { s.Mute = !s.Mute })},
		{label: "Record matches", kind: itemChoice, value: func() string { return onOff(s.Record) },
			change: changed(func(int) { s.Record = !s.Record })},
		{label: "Keys…", act: func() { m.push(keysScreen(s, apply)) }},
		{label: "Back", act: func() { s.Normalize(); apply(); m.pop() }},
	}, hint: "↑↓ choose · ←→ change · Enter edit · Esc back (saved as you go)"}
}

// keysScreen rebinds the driving and aiming actions of s.
func keysScreen(s *Settings, apply func()) *menuScreen {
	sc := &menuScreen{title: "Keys", hint: "Enter, then the new key · Esc back"}
	for _, a := range Actions {
		sc.items = append(sc.items, menuItem{label: a.What, kind: itemKey,
			value: func() string { return s.Keys[a.Name] },
			bind: func(k window.Key) string {
				name := keyName(k)
				switch {
				case name == "":
					return "that key cannot be bound"
				case fixedKey(k):
					return name + " already has a fixed use (F1 lists them)"
				}
				for _, b := range Actions {
					if b.Name != a.Name && s.Keys[b.Name] == name {
						return name + " is taken by " + b.What
					}
				}
				s.Keys[a.Name] = name
				apply()
				return ""
			}})
	}
	sc.items = append(sc.items, menuItem{label: "Defaults", act: func() {
		for _, a := range Actions {
			s.Keys[a.Name] = a.Key
		}
		apply()
	}})
	return sc
}

// MenuMode is what the player chose in the main menu.
type MenuMode uint8

// Main menu choices.
const (
	// MenuQuit: leave the game.
	MenuQuit MenuMode = iota
	// MenuPractice: a practice match against bots.
	MenuPractice
	// MenuHost: host a match (Settings.Last holds port, passphrase and bots).
	MenuHost
	// MenuJoin: join a match (Settings.Last holds the address, the passphrase and
	// where the match was found,
	// Settings.Name the name).
	MenuJoin
)

// mainMenu builds the main menu over s. choose ends the menu with a mode (after check
// accepts it); apply runs after every settings change; find, if set, is how the Join
// menu looks for matches. open shows the page of a mode over the main page (see
// menuRunner.open).
func mainMenu(s *Settings, choose func(MenuMode), apply func(), find *FindConfig) (m *menu, open func(MenuMode, bool)) {
	m = &menu{}
	port := strconv.Itoa(s.Last.HostPort)
	host := &menuScreen{title: "Host a match", hint: "others join with your address and the fingerprint shown", items: []menuItem{
		{label: "Port", kind: itemText, text: &port, accept: digits, maxLen: 5,
			commit: func() { s.Last.HostPort = atoiOr(port, -1); apply() }},
		{label: "Passphrase", kind: itemText, text: &s.Last.HostPass, secret: true, commit: apply},
		{label: "Bots", kind: itemChoice, value: func() string { return strconv.Itoa(s.Last.HostBots) },
			change: func(st int) { s.Last.HostBots = stepInt(s.Last.HostBots, st, 0, game.MaxBots); apply() }},
		{label: "Start hosting", act: func() {
			s.Last.HostPort = atoiOr(port, -1)
			choose(MenuHost)
		}},
		{label: "Back", act: func() { m.pop() }},
	}}
	typed := &menuScreen{title: "Join by address", hint: "address as HOST:PORT, optionally #FINGERPRINT", items: []menuItem{
		{label: "Address", kind: itemText, text: &s.Last.JoinAddr, maxLen: 200, commit: apply},
		{label: "Name", kind: itemText, text: &s.Name, maxLen: wire.MaxNameLen, commit: apply, empty: game.DefaultName},
		{label: "Passphrase", kind: itemText, text: &s.Last.JoinPass, secret: true, commit: apply},
		{label: "Join", act: func() {
			s.Last.JoinVia, s.Last.JoinName = "", "" // typed: trusted as typed
			choose(MenuJoin)
		}},
		{label: "Back", act: func() { m.pop() }},
	}}
	m.push(&menuScreen{title: "Treadline", hint: "Enter: practice at once · ↑↓ choose · Esc quit", items: []menuItem{
		{label: "Practice", act: func() { choose(MenuPractice) }},
		{label: "Host a match…", act: func() { m.push(host) }},
		{label: "Join a match…", act: func() { m.push(joinScreen(m, s, typed, choose, apply, find)) }},
		{label: "Settings…", act: func() { m.push(settingsScreen(m, s, apply)) }},
		{label: "Quit", act: func() { choose(MenuQuit) }},
	}})
	open = func(mode MenuMode, askPass bool) {
		switch mode {
		case MenuHost:
			m.top().sel = 1
			m.push(host)
		case MenuJoin:
			m.top().sel = 2
			m.push(joinScreen(m, s, typed, choose, apply, find))
			if s.Last.JoinVia == "" {
				m.push(typed)
			}
			if askPass {
				name := s.Last.JoinName
				if name == "" {
					name, _, _ = strings.Cut(s.Last.JoinAddr, "#")
				}
				askPassphrase(m, s, name, func() { choose(MenuJoin) })
			}
		}
	}
	return m, open
}

// askPassphrase pushes the screen that asks for the passphrase of the match called
// name, and join joins it.
func askPassphrase(m *menu, s *Settings, name string, join func()) {
	s.Last.JoinPass = ""
	m.push(&menuScreen{title: "Passphrase for " + name, hint: "type the match's passphrase, then Enter · Esc back", items: []menuItem{
		{label: "Passphrase", kind: itemText, text: &s.Last.JoinPass, secret: true, submit: join},
		{label: "Join", act: join},
		{label: "Back", act: func() { m.pop() }},
	}})
	m.editing = true
}

// pauseMenu builds the menu Esc opens in a match.
func pauseMenu(s *Settings, resume, leave, apply func()) *menu {
	m := &menu{}
	m.push(&menuScreen{title: "Paused", hint: "the match goes on · Esc back to the battle", items: []menuItem{
		{label: "Resume", act: resume},
		{label: "Settings…", act: func() { m.push(settingsScreen(m, s, apply)) }},
		{label: "Leave the match", act: leave},
	}})
	return m
}

// aimWith names the aiming of Settings.KeyAim.
func aimWith(keys bool) string {
	if keys {
		return "keys (Q/E, R/F)"
	}
	return "mouse"
}
