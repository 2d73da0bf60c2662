package wire

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text field limits in bytes of UTF-8. Every text field is sent as a one-byte length
// followed by that many bytes; it must be valid UTF-8 without control characters.
const (
	// MaxNameLen is the longest player or actor name.
	MaxNameLen = 32
	// MaxMapNameLen is the longest map name.
	MaxMapNameLen = 64
	// MaxTextLen is the longest chat line, kick reason or refusal text.
	MaxTextLen = 200
)

// maxMarks is how many combining marks may follow one another: enough for any
// language's stacked diacritics (Vietnamese takes two), too few to smear a line of
// chat over its neighbours.
const maxMarks = 3

// checkText reports whether s is valid UTF-8 that shows what it says, so that it can
// be printed or logged without harm: no control characters; no format characters
// (bidi embeddings, overrides and isolates that reorder what follows, zero-width
// spaces and joiners that hide inside a name, the byte order mark), no line or
// paragraph separators, no private-use characters, and no more than maxMarks
// combining marks in a row.
func checkText(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("not valid UTF-8: %w", ErrInvalid)
	}
	marks := 0
	for _, r := range s {
		switch {
		case unicode.IsControl(r):
			return fmt.Errorf("control character %U: %w", r, ErrInvalid)
		case unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Co):
			return fmt.Errorf("invisible or reordering character %U: %w", r, ErrInvalid)
		case unicode.In(r, unicode.Mn, unicode.Me):
			if marks++; marks > maxMarks {
				return fmt.Errorf("more than %d combining marks in a row: %w", maxMarks, ErrInvalid)
			}
		default:
			marks = 0
		}
	}
	return nil
}

// Skeleton returns the confusable skeleton of a name, after Unicode TR39's: two names
// with one skeleton look alike and must not both be in a match. It drops combining
// marks, folds fullwidth Latin to ASCII, maps the Cyrillic and Greek letters that
// look like Latin ones (and the digits and strokes that look like letters) to those
// letters, lowercases, and folds the sequences that read as one letter ("rn" as "m",
// "vv" as "w"). The table is a built-in subset of TR39's confusables for Latin,
// Cyrillic and Greek.
func Skeleton(name string) string {
	b := make([]rune, 0, len(name))
	for _, r := range name {
		if unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf) {
			continue
		}
		if r >= 0xFF01 && r <= 0xFF5E { // fullwidth ASCII
			r -= 0xFEE0
		}
		if l, ok := confusables[r]; ok {
			r = l
		}
		b = append(b, unicode.ToLower(r))
	}
	out := string(b)
	for _, f := range [...][2]string{{"rn", "m"}, {"vv", "w"}} {
		out = strings.ReplaceAll(out, f[0], f[1])
	}
	return out
}

// confusables maps look-alikes to the Latin letter they pass for.
var confusables = map[rune]rune{
	// Digits and strokes.
	'0': 'o', '1': 'l', 'I': 'l', 'i': 'l', '|': 'l', 'ǀ': 'l',
	// Cyrillic.
	'а': 'a', 'А': 'a', 'в': 'b', 'В': 'b', 'Ь': 'b', 'ь': 'b', 'с': 'c', 'С': 'c', 'ԁ': 'd', 'е': 'e', 'Е': 'e',
	'ё': 'e', 'Ё': 'e', 'һ': 'h', 'н': 'h', 'Н': 'h', 'і': 'l', 'І': 'l', 'ӏ': 'l', 'Ӏ': 'l', 'ј': 'j', 'Ј': 'j',
	'к': 'k', 'К': 'k', 'м': 'm', 'М': 'm', 'п': 'n', 'о': 'o', 'О': 'o', 'р': 'p', 'Р': 'p', 'ԛ': 'q', 'Ԛ': 'q',
	'г': 'r', 'ѕ': 's', 'Ѕ': 's', 'т': 't', 'Т': 't', 'и': 'u', 'ѵ': 'v', 'Ѵ': 'v', 'ԝ': 'w', 'Ԝ': 'w', 'х': 'x',
	'Х': 'x', 'у': 'y', 'У': 'y', 'Ү': 'y', 'ү': 'y',
	// Greek.
	'α': 'a', 'Α': 'a', 'β': 'b', 'Β': 'b', 'ϲ': 'c', 'Ϲ': 'c', 'ε': 'e', 'Ε': 'e', 'η': 'n', 'Η': 'h', 'ι': 'l',
	'Ι': 'l', 'κ': 'k', 'Κ': 'k', 'Μ': 'm', 'ν': 'v', 'Ν': 'n', 'ο': 'o', 'Ο': 'o', 'ρ': 'p', 'Ρ': 'p', 'τ': 't',
	'Τ': 't', 'υ': 'u', 'Υ': 'y', 'χ': 'x', 'Χ': 'x', 'ω': 'w', 'Ζ': 'z', 'γ': 'y', 'μ': 'u',
}

// CheckName reports whether s can be sent as a player or actor name: at most
// MaxNameLen bytes of text that shows what it says (see checkText), and shows
// something: not empty, blank or all fillers.
func CheckName(s string) error { return checkLabel("name", s, MaxNameLen) }

// CheckMapName reports whether s can be shown as a map's name: the rules of
// CheckName, at most MaxMapNameLen bytes.
func CheckMapName(s string) error { return checkLabel("map name", s, MaxMapNameLen) }

// checkLabel checks a name: a text field that must show at least one character.
func checkLabel(field, s string, max int) error {
	if err := checkField(field, s, max); err != nil {
		return err
	}
	for _, r := range s {
		if !unicode.IsSpace(r) && !unicode.Is(unicode.Zs, r) && !blanks[r] && !unicode.In(r, unicode.Mn, unicode.Me) {
			return nil
		}
	}
	return fmt.Errorf("wire: %s shows nothing: %w", field, ErrInvalid)
}

// blanks are letters and symbols that show as blank space.
var blanks = map[rune]bool{
	'\u115F': true, '\u1160': true, '\u3164': true, '\uFFA0': true, // Hangul fillers
	'\u2800': true, // braille pattern blank
}

// checkField checks a text field against its limit and content rules.
func checkField(field, s string, max int) error {
	if len(s) > max {
		return fmt.Errorf("wire: %s is %d bytes, limit %d: %w", field, len(s), max, ErrTooLong)
	}
	if err := checkText(s); err != nil {
		return fmt.Errorf("wire: %s: %w", field, err)
	}
	return nil
}

// appendString appends a length-prefixed text field; the caller has checked it.
func appendString(b []byte, s string) []byte {
	b = append(b, byte(len(s)))
	return append(b, s...)
}
