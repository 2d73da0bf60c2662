package client

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/g3n/engine/window"
	"github.com/treadline/treadline/render"
)

// The menus are lists of items driven by the keyboard: Up and Down choose, Enter
// activates (or starts and ends editing a text field), Left and Right change a value,
// Esc goes back. The model here knows nothing of drawing; render.MenuView draws the
// page it shows.

// itemKind says how an item reacts to keys.
type itemKind uint8

const (
	itemAction itemKind = iota // Enter runs act
	itemText                   // Enter edits *text; typed characters go in
	itemChoice                 // Left and Right call change(-1) and change(+1)
	itemKey                    // Enter waits for the next key and binds it
)

// menuItem is one line of a menu screen.
type menuItem struct {
	label  string
	kind   itemKind
	act    func()
	text   *string
	secret bool            // show text as dots
	accept func(rune) bool // characters a text field takes; nil: printable
	maxLen int             // bytes; 0: 64
	commit func()          // runs when editing ends
	submit func()          // runs after commit when editing ends with Enter
	empty  string          // shown for an empty text field not being edited (the default it stands for)
	value  func() string   // the value shown for choices and keys
	change func(step int)
	bind   func(k window.Key) string // returns "" or why the key was refused
	key    string                    // tells apart items of the same label (found matches)
	about  string                    // the hint while the item is selected; "": the screen's
}

// menuScreen is one page of a menu.
type menuScreen struct {
	title string
	items []menuItem
	sel   int
	hint  string
	// refresh, if set, runs every frame while the screen is on top, to bring its
	// items up to date; it reports whether they changed.
	refresh func() bool
	// leave, if set, runs when the screen is popped or the menu ends.
	leave func()
}

// menu is a stack of screens; the top one is shown.
type menu struct {
	stack   []*menuScreen
	editing bool   // the selected text item takes typed characters
	binding bool   // the selected key item waits for a key
	note    string // a one-line message under the items (refusals, errors)
	closed  bool   // Esc on the first screen, or an item closed the menu
	changed bool   // the text to draw changed
}

func (m *menu) top() *menuScreen { return m.stack[len(m.stack)-1] }

// push shows s over the current screen.
func (m *menu) push(s *menuScreen) {
	m.stack = append(m.stack, s)
	m.editing, m.binding, m.note, m.changed = false, false, "", true
}

// pop goes back one screen; popping the first closes the menu.
func (m *menu) pop() {
	m.editing, m.binding, m.note, m.changed = false, false, "", true
	if len(m.stack) == 1 {
		m.closed = true
		return
	}
	if s := m.top(); s.leave != nil {
		s.leave()
	}
	m.stack = m.stack[:len(m.stack)-1]
}

// tick brings the top screen up to date (see menuScreen.refresh).
func (m *menu) tick() {
	if s := m.top(); s.refresh != nil && s.refresh() {
		m.changed = true
	}
}

// end runs the leave of every screen shown, the top one first, when the menu ends.
func (m *menu) end() {
	for i := len(m.stack) - 1; i >= 0; i-- {
		if s := m.stack[i]; s.leave != nil {
			s.leave()
			s.leave = nil
		}
	}
}

// key handles a key press: on a screen without items it closes the screen; while a
// key is being bound or a text edited, it goes to that; otherwise it navigates.
func (m *menu) key(k window.Key) {
	s := m.top()
	m.changed = true
	if len(s.items) == 0 {
		if k == window.KeyEscape || k == window.KeyEnter || k == window.KeyKPEnter {
			m.pop()
		}
		return
	}
	it := &s.items[s.sel]
	switch {
	case m.binding:
		m.binding = false
		if k == window.KeyEscape {
			m.note = ""
			return
		}
		m.note = it.bind(k)
	case m.editing:
		m.editKey(it, k)
	default:
		m.note = ""
		m.navigate(s, it, k)
	}
}

// editKey handles a key press while the text of item it is edited: Enter, Escape or
// Tab end the edit and commit it, Backspace deletes the last character.
func (m *menu) editKey(it *menuItem, k window.Key) {
	switch k {
	case window.KeyEnter, window.KeyKPEnter, window.KeyEscape, window.KeyTab:
		m.editing = false
		if it.commit != nil {
			it.commit()
		}
		if it.submit != nil && (k == window.KeyEnter || k == window.KeyKPEnter) {
			it.submit()
		}
	case window.KeyBackspace:
		if t := *it.text; t != "" {
			_, n := utf8.DecodeLastRuneInString(t)
			*it.text = t[:len(t)-n]
		}
	}
}

// navigate handles a key press on screen s with item it selected: moving the
// selection, changing a choice, going back, or activating the item.
func (m *menu) navigate(s *menuScreen, it *menuItem, k window.Key) {
	switch k {
	case window.KeyUp, window.KeyW:
		s.sel = (s.sel + len(s.items) - 1) % len(s.items)
	case window.KeyDown, window.KeyS, window.KeyTab:
		s.sel = (s.sel + 1) % len(s.items)
	case window.KeyLeft, window.KeyA:
		if it.kind == itemChoice {
			it.change(-1)
		}
	case window.KeyRight, window.KeyD:
		if it.kind == itemChoice {
			it.change(+1)
		}
	case window.KeyEscape:
		m.pop()
	case window.KeyEnter, window.KeyKPEnter, window.KeySpace:
		m.activate(it)
	}
}

// activate runs an action, starts editing a text, steps a choice, or starts binding a
// key.
func (m *menu) activate(it *menuItem) {
	switch it.kind {
	case itemAction:
		it.act()
	case itemText:
		m.editing = true
	case itemChoice:
		it.change(+1)
	case itemKey:
		m.binding = true
	}
}

// char handles a typed character (for text fields being edited).
func (m *menu) char(r rune) {
	if !m.editing {
		return
	}
	it := &m.top().items[m.top().sel]
	limit := it.maxLen
	if limit == 0 {
		limit = 64
	}
	ok := it.accept == nil && r >= ' ' && r != 0x7f || it.accept != nil && it.accept(r)
	if ok && len(*it.text)+utf8.RuneLen(r) <= limit {
		*it.text += string(r)
		m.changed = true
	}
}

// page returns what the top screen shows: its title, one row per item (the selected
// one marked) and the hint.
func (m *menu) page() render.MenuPage {
	s := m.top()
	var items [][2]string
	for i, it := range s.items {
		v := ""
		switch it.kind {
		case itemText:
			editing := m.editing && i == s.sel
			v = *it.text
			if v == "" && !editing {
				v = it.empty
			}
			if it.secret {
				v = strings.Repeat("•", utf8.RuneCountInString(v))
			}
			v = clipShown(v, editing)
			if editing {
				v += "_"
			}
		case itemAction:
			if it.value != nil { // an action may say something too (a found match)
				v = it.value()
			}
		case itemChoice, itemKey:
			v = it.value()
			if m.binding && i == s.sel {
				// Short, so the row stays as wide as the others; the hint says more.
				v = "press a key…"
			}
		}
		items = append(items, [2]string{it.label, v})
	}
	hint := s.hint
	switch {
	case m.note != "":
		hint = wrapText(m.note, noteWidth) // a failure's sentence can be long
	case m.editing:
		hint = "type, then Enter"
	case m.binding:
		hint = "press the new key · Esc keeps " + s.items[s.sel].value()
	case s.sel < len(s.items) && s.items[s.sel].about != "":
		hint = s.items[s.sel].about
	case hint == "":
		hint = "↑↓ choose · Enter select · ←→ change · Esc back"
	}
	return render.MenuPage{Title: s.title, Items: items, Selected: s.sel, Hint: hint}
}

// maxShown is how many characters of a value a menu row shows, so that a long
// address or list of URLs keeps the menu inside a small window.
const maxShown = 48

// clipShown shortens v to maxShown characters for a row: its start, or while it is
// edited its end (where the typing is), with an ellipsis for what is left out.
func clipShown(v string, tail bool) string {
	r := []rune(v)
	if len(r) <= maxShown {
		return v
	}
	if tail {
		return "…" + string(r[len(r)-maxShown+1:])
	}
	return string(r[:maxShown-1]) + "…"
}

// digits accepts decimal digits only.
func digits(r rune) bool { return r >= '0' && r <= '9' }

// stepInt returns v+step clamped to lo..hi.
func stepInt(v, step, lo, hi int) int { return max(lo, min(hi, v+step)) }

// atoiOr parses s or returns def.
func atoiOr(s string, def int) int {
	if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
		return n
	}
	return def
}
