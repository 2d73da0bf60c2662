package lobby

import (
	"net/netip"
	"strings"
	"testing"
)

// TestNamesAsNamed: a match's name and map arrive as the host named them, whatever
// bytes they hold that DNS presentation format escapes (RFC 1035 \DDD and \X).
func TestNamesAsNamed(t *testing.T) {
	src := netip.MustParseAddr("192.0.2.44")
	for _, name := range []string{"Jörg", "вася", `a"b\c`, `\\`, `\065`, "tab-free ~", "日本語"} {
		e := testEntry()
		e.Name, e.Map = name, name
		entries, _, bad, err := parseAnswer(answerFor(t, 1, []Entry{e}, []int{7777}), src)
		if err != nil || bad != 0 || len(entries) != 1 {
			t.Errorf("%q: %d entries, %d bad, %v", name, len(entries), bad, err)
			continue
		}
		if got := entries[0]; got.Name != name || got.Map != name {
			t.Errorf("announced %q, shown %q on map %q", name, got.Name, got.Map)
		}
	}
}

func TestUnescapeTXT(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{`plain`, "plain", true},
		{`J\195\182rg`, "Jörg", true},
		{`a\"b\\c`, `a"b\c`, true},
		{`\a\.\ `, "a. ", true},
		{`\000`, "\x00", true},
		{`\255`, "\xff", true},
		{`\256`, "", false},
		{`\25`, "", false},
		{`\2a5`, "", false},
		{`end\`, "", false},
	} {
		got, err := unescapeTXT(c.in)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("unescapeTXT(%q) = %q, %v; want %q, ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

// FuzzTXTEscapes: escaping is undone exactly by unescaping, unescaping never panics,
// and what it accepts escapes back to a string it reads the same.
func FuzzTXTEscapes(f *testing.F) {
	for _, s := range []string{"Jörg", `J\195\182rg`, `a\"b\\c`, `\`, `\25`, `\999`, "\xff\x00", strings.Repeat(`\`, 7)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, err := unescapeTXT(escapeTXT(s)); err != nil || got != s {
			t.Fatalf("unescape(escape(%q)) = %q, %v", s, got, err)
		}
		u, err := unescapeTXT(s)
		if err != nil {
			return
		}
		if len(u) > len(s) {
			t.Fatalf("unescaped %q to a longer %q", s, u)
		}
		if again, err := unescapeTXT(escapeTXT(u)); err != nil || again != u {
			t.Fatalf("%q: unescaped %q, re-escaped and read as %q, %v", s, u, again, err)
		}
	})
}
