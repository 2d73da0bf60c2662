package lobby

import (
	"errors"
	"testing"
)

// TestEntryText: an entry's name and map follow the rules of a player's name
// (wire.CheckName): nothing invisible, reordering or blank is shown to a player.
func TestEntryText(t *testing.T) {
	for _, c := range []struct {
		name, mapName string
		ok            bool
	}{
		{"ann", "dunes", true},
		{"Zoë", "Nguyễn's valley", true},
		{"ann", "\u200B", false},             // all invisible
		{"ann", "\u200B\u200C\u2060", false}, // all invisible
		{"ann", "dunes\u202Eexe.", false},    // right-to-left override
		{"ann", "du\u200Dnes", false},        // zero-width joiner
		{"ann", "\u2066dunes\u2069", false},  // isolate
		{"ann", "\u3164", false},             // Hangul filler: shows nothing
		{"ann", "   ", false},                // blank
		{"ann", "\u2800\u2800", false},       // braille blank
		{"\u3164\u3164", "dunes", false},
		{"   ", "dunes", false},
		{"ann", "\uE000", false}, // private use
	} {
		e := testEntry()
		e.Name, e.Map = c.name, c.mapName
		err := e.Check()
		if (err == nil) != c.ok {
			t.Errorf("name %+q map %+q: %v, want ok %v", c.name, c.mapName, err, c.ok)
		}
		if err != nil && !errors.Is(err, ErrBadEntry) {
			t.Errorf("name %+q map %+q: %v, want ErrBadEntry", c.name, c.mapName, err)
		}
	}
}
