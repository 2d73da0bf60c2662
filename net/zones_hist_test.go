package net

import (
	"testing"
	"unsafe"

	"github.com/go-gl/mathgl/mgl64"
)

// TestZonesSentMotion checks that a slot finds the motion of the record its player
// was last sent in the tank's history while the history holds it, and none (news at
// newsCap) before the player was sent any or once the history has moved past it.
func TestZonesSentMotion(t *testing.T) {
	a := &hostActor{hist: new([histLen]motion)}
	for n := uint64(1); n <= 300; n++ {
		a.count = n
		a.hist[n%histLen] = motion{pos: mgl64.Vec3{float64(n), 0, 0}}
	}
	for _, c := range []struct {
		name string
		s    slot
		want float64 // the position's x, the record's count; 0: none
	}{
		{"the latest", slot{known: true, sentN: 300}, 300},
		{"a recent one", slot{known: true, sentN: 250}, 250},
		{"the oldest kept", slot{known: true, sentN: 300 - histLen + 1}, 300 - histLen + 1},
		{"one older than kept", slot{known: true, sentN: 300 - histLen}, 0},
		{"long ago", slot{known: true, sentN: 3}, 0},
		{"never sent", slot{sentN: 299}, 0},
	} {
		got := sentMotion(&c.s, a)
		switch {
		case c.want == 0 && got != nil:
			t.Errorf("%s: motion of record %v, want none", c.name, got.pos[0])
		case c.want != 0 && got == nil:
			t.Errorf("%s: no motion, want record %v's", c.name, c.want)
		case c.want != 0 && got.pos[0] != c.want:
			t.Errorf("%s: motion of record %v, want %v's", c.name, got.pos[0], c.want)
		}
	}
	if got := sentMotion(&slot{known: true, sentN: 1}, &hostActor{count: 1}); got != nil {
		t.Errorf("a tank without a history: motion %v, want none", got)
	}
}

// TestZonesSlotSize holds a player's slot of a tank to what the schedule needs of
// the pair: every player has one of every tank, 512 × 512 of them at most.
func TestZonesSlotSize(t *testing.T) {
	if n := unsafe.Sizeof(slot{}); n > 48 {
		t.Errorf("a slot takes %d bytes, want at most 48", n)
	}
}
