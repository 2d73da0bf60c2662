package wire

// SeqNewer reports whether sequence number a is newer than b in 16-bit serial number
// arithmetic: a is newer when it is 1…32767 steps ahead of b, wrapping at 2¹⁶.
// Exactly 32768 apart is ambiguous and counts as not newer.
func SeqNewer(a, b uint16) bool { return int16(a-b) > 0 }

// SeqDiff returns how many steps a is ahead of b, in [−32768, 32767]; negative when
// a is older.
func SeqDiff(a, b uint16) int { return int(int16(a - b)) }

// SeqFilter drops late and duplicated updates of one actor: Accept admits only
// sequence numbers newer than every one admitted before. The zero value admits the
// first number it sees. Not safe for concurrent use.
type SeqFilter struct {
	last uint16
	seen bool
}

// Accept reports whether seq is newer than the newest admitted so far, and if so
// makes it the newest. A late or duplicated seq returns false and changes nothing.
func (f *SeqFilter) Accept(seq uint16) bool {
	if f.seen && !SeqNewer(seq, f.last) {
		return false
	}
	f.last, f.seen = seq, true
	return true
}

// Set makes seq the newest admitted number, as after a Spawn: later updates must be
// newer than it.
func (f *SeqFilter) Set(seq uint16) { f.last, f.seen = seq, true }

// Last returns the newest admitted number and whether there is one.
func (f *SeqFilter) Last() (seq uint16, ok bool) { return f.last, f.seen }
