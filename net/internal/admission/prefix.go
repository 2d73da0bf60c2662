package admission

import (
	stdnet "net"
	"net/netip"
)

// Widths of the address prefixes the host's defences count by: an IPv4 /24 or an
// IPv6 /64 is what one subscriber, one NAT or one hosting customer usually holds,
// so an attacker cannot escape a per-prefix cap by changing the last address bits.
const (
	prefixBitsIPv4 = 24
	prefixBitsIPv6 = 64
)

// addrIP returns the IP of a UDP address, IPv4-mapped IPv6 unmapped, or the zero
// Addr for anything else.
func addrIP(a stdnet.Addr) netip.Addr {
	u, ok := a.(*stdnet.UDPAddr)
	if !ok || u == nil {
		return netip.Addr{}
	}
	ip, ok := netip.AddrFromSlice(u.IP)
	if !ok {
		return netip.Addr{}
	}
	return ip.Unmap()
}

// Prefix returns the prefix a's IP belongs to for per-prefix limits: its /24 for
// IPv4, its /64 for IPv6. Addresses that are not UDP addresses all share the zero
// Prefix, so they are limited together rather than not at all.
func Prefix(a stdnet.Addr) netip.Prefix {
	ip := addrIP(a)
	if !ip.IsValid() {
		return netip.Prefix{}
	}
	bits := prefixBitsIPv6
	if ip.Is4() {
		bits = prefixBitsIPv4
	}
	p, _ := ip.Prefix(bits)
	return p
}

// Host returns the single-address prefix (/32 or /128) of a's IP, for limits that
// count by address rather than by network; the zero Prefix for anything but a UDP
// address.
func Host(a stdnet.Addr) netip.Prefix {
	ip := addrIP(a)
	if !ip.IsValid() {
		return netip.Prefix{}
	}
	return netip.PrefixFrom(ip, ip.BitLen())
}

// EvictingSet holds items under a total cap and a per-prefix cap, and makes room for
// a newcomer by evicting an item instead of refusing it: the oldest of the
// newcomer's prefix when that prefix is full, and when the set is full the oldest of
// the prefix holding the most. That is what the host does with half-open joins, so
// that an attacker who keeps reopening them can never shut newer, honest joins out,
// and one who holds many from one prefix evicts its own first. Not safe for
// concurrent use.
type EvictingSet[T comparable] struct {
	maxTotal, maxPer int
	seq              uint64
	items            map[T]evictEntry
	per              map[netip.Prefix]int
}

type evictEntry struct {
	prefix netip.Prefix
	seq    uint64 // arrival order
}

// NewEvictingSet returns a set of at most maxTotal items and maxPer per prefix (each
// at least 1).
func NewEvictingSet[T comparable](maxTotal, maxPer int) EvictingSet[T] {
	return EvictingSet[T]{maxTotal: max(1, maxTotal), maxPer: max(1, maxPer),
		items: map[T]evictEntry{}, per: map[netip.Prefix]int{}}
}

// Add admits x in prefix p and returns the item it evicted to make room, if any.
// Adding an item already held does nothing.
func (s *EvictingSet[T]) Add(x T, p netip.Prefix) (evicted T, ok bool) {
	if _, held := s.items[x]; held {
		return evicted, false
	}
	switch {
	case s.per[p] >= s.maxPer:
		evicted, ok = s.oldest(p, true)
	case len(s.items) >= s.maxTotal:
		evicted, ok = s.crowded()
	}
	if ok {
		s.Remove(evicted)
	}
	s.seq++
	s.items[x] = evictEntry{prefix: p, seq: s.seq}
	s.per[p]++
	return evicted, ok
}

// crowded returns the oldest item of the prefix holding the most (of those prefixes,
// the one with the oldest item).
func (s *EvictingSet[T]) crowded() (T, bool) {
	var (
		best  T
		found bool
		be    evictEntry
	)
	for x, e := range s.items {
		if n, bn := s.per[e.prefix], s.per[be.prefix]; !found || n > bn || n == bn && e.seq < be.seq {
			best, be, found = x, e, true
		}
	}
	return best, found
}

// oldest returns the earliest item, in prefix p only when inPrefix. The sets are
// small (tens of items), so a scan is cheaper than keeping an ordered index.
func (s *EvictingSet[T]) oldest(p netip.Prefix, inPrefix bool) (T, bool) {
	var (
		best  T
		found bool
		seq   uint64
	)
	for x, e := range s.items {
		if inPrefix && e.prefix != p {
			continue
		}
		if !found || e.seq < seq {
			best, seq, found = x, e.seq, true
		}
	}
	return best, found
}

// Remove drops x; it reports whether x was held.
func (s *EvictingSet[T]) Remove(x T) bool {
	e, held := s.items[x]
	if !held {
		return false
	}
	delete(s.items, x)
	if n := s.per[e.prefix]; n <= 1 {
		delete(s.per, e.prefix)
	} else {
		s.per[e.prefix] = n - 1
	}
	return true
}

// Len returns the number of items held.
func (s *EvictingSet[T]) Len() int { return len(s.items) }

// Count returns the items held in prefix p.
func (s *EvictingSet[T]) Count(p netip.Prefix) int { return s.per[p] }
