package wire

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckNameRefusesDeceptiveText(t *testing.T) {
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"ann", true}, {"Zoë", true}, {"Nguyễn", true}, {"Ёжик", true}, {"戦車", true},
		{"ann\u202Egnp.exe", false}, // right-to-left override
		{"ann\u2066x\u2069", false}, // isolate
		{"ann\u200E", false},        // left-to-right mark
		{"a\u200Bnn", false},        // zero-width space
		{"a\u200Dnn", false},        // zero-width joiner
		{"\uFEFFann", false},        // byte order mark
		{"ann\u2028bob", false},     // line separator
		{"ann\u2029bob", false},     // paragraph separator
		{"a" + strings.Repeat("\u0301", maxMarks+1), false},
		{"\uE000ann", false}, // private use
	} {
		err := CheckName(c.name)
		if (err == nil) != c.ok {
			t.Errorf("CheckName(%+q) = %v, want ok %v", c.name, err, c.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("CheckName(%+q) = %v, want ErrInvalid", c.name, err)
		}
	}
}

func TestSkeleton(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"bob", "Воb", true},        // Cyrillic В and о
		{"victim", "vіctim", true},  // Cyrillic і
		{"paypal", "раураl", true},  // Cyrillic р, а, у
		{"alpha", "αlpha", true},    // Greek α
		{"tom", "ΤΟΜ", true},        // Greek capitals
		{"bill", "b1ll", true},      // a digit for a letter
		{"modern", "rnodern", true}, // rn for m
		{"ann", "ａｎｎ", true},        // fullwidth
		{"ann", "a\u0301nn", true},  // a combining mark
		{"ann", "bob", false},
		{"victor", "victim", false},
	} {
		if got := Skeleton(c.a) == Skeleton(c.b); got != c.same {
			t.Errorf("Skeleton(%+q) = %+q, Skeleton(%+q) = %+q: alike %v, want %v", c.a, Skeleton(c.a), c.b, Skeleton(c.b), got, c.same)
		}
	}
}
