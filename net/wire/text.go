package wire

import (
	"fmt"
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

// checkText reports whether s is valid UTF-8 free of control characters, so that it
// can be printed or logged without harm.
func checkText(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("not valid UTF-8: %w", ErrInvalid)
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return fmt.Errorf("control character %U: %w", r, ErrInvalid)
		}
	}
	return nil
}

// CheckName reports whether s can be sent as a player or actor name: non-empty, at
// most MaxNameLen bytes, valid UTF-8 without control characters.
func CheckName(s string) error {
	if s == "" {
		return fmt.Errorf("wire: empty name: %w", ErrInvalid)
	}
	return checkField("name", s, MaxNameLen)
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
