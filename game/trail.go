package game

import "github.com/go-gl/mathgl/mgl64"

// ring keeps the last positions of a tank at a fixed sampling interval, in a buffer
// allocated once.
type ring struct {
	buf  []mgl64.Vec3
	head int     // next slot to write
	n    int     // samples held
	next float64 // time of the next sample
	set  bool    // next is meaningful
}

// newRing returns a ring holding up to n positions.
func newRing(n int) ring { return ring{buf: make([]mgl64.Vec3, n)} }

// reset forgets every sample (after a continuity break the old trail would draw a
// line across the map).
func (r *ring) reset() { r.head, r.n, r.set = 0, 0, false }

// add records p when at least interval seconds have passed since the last sample.
func (r *ring) add(now float64, p mgl64.Vec3, interval float64) {
	if len(r.buf) == 0 || (r.set && now < r.next) {
		return
	}
	r.buf[r.head] = p
	r.head = (r.head + 1) % len(r.buf)
	if r.n < len(r.buf) {
		r.n++
	}
	r.next, r.set = now+interval, true
}

// appendTo appends the samples to dst, oldest first, and returns the extended slice.
func (r *ring) appendTo(dst []mgl64.Vec3) []mgl64.Vec3 {
	start := r.head - r.n
	if start < 0 {
		// Wrapped: the older samples run to the buffer's end, the newer from its start.
		start += len(r.buf)
		dst = append(dst, r.buf[start:]...)
		return append(dst, r.buf[:r.head]...)
	}
	return append(dst, r.buf[start:r.head]...)
}
