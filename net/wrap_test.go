package net

import (
	"errors"
	stdnet "net"
	"testing"
)

// tagConn is a socket wrapper that records its place in a chain and whether it was
// closed.
type tagConn struct {
	stdnet.PacketConn
	tag    string
	closed bool
}

func (c *tagConn) Close() error { c.closed = true; return nil }

// TestChain: Chain wraps with inner first and outer over it, skips a nil side, and
// closes what inner made when outer fails.
func TestChain(t *testing.T) {
	var made []*tagConn
	tag := func(name string) WrapConn {
		return func(pc stdnet.PacketConn) (stdnet.PacketConn, error) {
			c := &tagConn{PacketConn: pc, tag: name}
			made = append(made, c)
			return c, nil
		}
	}
	failing := func(stdnet.PacketConn) (stdnet.PacketConn, error) { return nil, errors.New("refused") }
	for _, tc := range []struct {
		name         string
		inner, outer WrapConn
		want         []string // tags from the outermost in; nil: an error
	}{
		{"both", tag("inner"), tag("outer"), []string{"outer", "inner"}},
		{"inner only", tag("inner"), nil, []string{"inner"}},
		{"outer only", nil, tag("outer"), []string{"outer"}},
		{"outer fails", tag("inner"), failing, nil},
		{"inner fails", failing, tag("outer"), nil},
	} {
		made = nil
		pc, err := Chain(tc.inner, tc.outer)(nil)
		if tc.want == nil {
			if err == nil || pc != nil {
				t.Errorf("%s: got %v, %v; want an error", tc.name, pc, err)
			}
			for _, c := range made {
				if !c.closed {
					t.Errorf("%s: %s left open after the chain failed", tc.name, c.tag)
				}
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got []string
		for c, ok := pc.(*tagConn); ok; c, ok = c.PacketConn.(*tagConn) {
			got = append(got, c.tag)
		}
		if len(got) != len(tc.want) {
			t.Fatalf("%s: chain %v, want %v", tc.name, got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: chain %v, want %v", tc.name, got, tc.want)
			}
		}
	}
	if Chain(nil, nil) != nil {
		t.Error("Chain(nil, nil) is not nil: a socket would be wrapped by nothing")
	}
}
