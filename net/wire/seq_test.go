package wire

import "testing"

func TestSeqNewer(t *testing.T) {
	cases := []struct {
		a, b uint16
		want bool
		diff int
	}{
		{1, 0, true, 1},
		{0, 1, false, -1},
		{5, 5, false, 0},
		{0, 65535, true, 1}, // wrapped
		{65535, 0, false, -1},
		{10, 65530, true, 16},
		{32767, 0, true, 32767},
		{32768, 0, false, -32768}, // ambiguous: not newer
		{32769, 0, false, -32767},
	}
	for _, tc := range cases {
		if got := SeqNewer(tc.a, tc.b); got != tc.want {
			t.Errorf("SeqNewer(%d, %d) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := SeqDiff(tc.a, tc.b); got != tc.diff {
			t.Errorf("SeqDiff(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.diff)
		}
	}
}

func TestSeqFilter(t *testing.T) {
	var f SeqFilter
	if _, ok := f.Last(); ok {
		t.Fatal("zero filter has a last sequence")
	}
	steps := []struct {
		seq  uint16
		want bool
	}{
		{65530, true}, {65530, false}, // duplicate
		{65533, true}, {65531, false}, // late
		{2, true}, // across the wrap
		{65535, false}, {3, true}, {3, false},
	}
	for i, s := range steps {
		if got := f.Accept(s.seq); got != s.want {
			t.Errorf("step %d: Accept(%d) = %v, want %v", i, s.seq, got, s.want)
		}
	}
	if last, ok := f.Last(); !ok || last != 3 {
		t.Errorf("Last = %d, %v; want 3, true", last, ok)
	}
	f.Set(100)
	if f.Accept(100) || f.Accept(99) || !f.Accept(101) {
		t.Error("after Set(100): want 100 and 99 refused, 101 accepted")
	}
}
