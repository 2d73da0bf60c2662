package net

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

// addrPrefix returns the prefix a's IP belongs to for per-prefix limits: its /24 for
// IPv4, its /64 for IPv6. Addresses that are not UDP addresses all share the zero
// Prefix, so they are limited together rather than not at all.
func addrPrefix(a stdnet.Addr) netip.Prefix {
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

// addrHost returns the single-address prefix (/32 or /128) of a's IP, for limits
// that count by address rather than by network.
func addrHost(a stdnet.Addr) netip.Prefix {
	ip := addrIP(a)
	if !ip.IsValid() {
		return netip.Prefix{}
	}
	return netip.PrefixFrom(ip, ip.BitLen())
}

// prefixCaps counts holders of a resource per prefix and in total and refuses a new
// holder past either cap: handshakes in flight, players per address. The zero caps
// mean no holder is ever admitted. Not safe for concurrent use; the owner locks.
type prefixCaps struct {
	maxTotal, maxPer int
	total            int
	per              map[netip.Prefix]int
}

func newPrefixCaps(maxTotal, maxPer int) prefixCaps {
	return prefixCaps{maxTotal: maxTotal, maxPer: maxPer, per: map[netip.Prefix]int{}}
}

// capHit says which cap refused a holder.
type capHit uint8

const (
	capNone capHit = iota
	capTotal
	capPrefix
)

// acquire counts one more holder in p, or reports which cap refuses it.
func (c *prefixCaps) acquire(p netip.Prefix) capHit {
	switch {
	case c.total >= c.maxTotal:
		return capTotal
	case c.per[p] >= c.maxPer:
		return capPrefix
	}
	c.total++
	c.per[p]++
	return capNone
}

// release counts one holder in p less. The map never keeps a zero count, so it
// holds at most maxTotal prefixes.
func (c *prefixCaps) release(p netip.Prefix) {
	n := c.per[p]
	if n == 0 {
		return
	}
	c.total--
	if n == 1 {
		delete(c.per, p)
	} else {
		c.per[p] = n - 1
	}
}

// count returns the holders in p.
func (c *prefixCaps) count(p netip.Prefix) int { return c.per[p] }

// evictingSet holds items under a total cap and a per-prefix cap like prefixCaps,
// but makes room for a newcomer by evicting the oldest item (of its prefix when the
// prefix is full, of all prefixes when the set is full) instead of refusing it: what
// the host does with half-open joins, so that an attacker who keeps reopening them
// can never shut newer, honest joins out. Not safe for concurrent use.
type evictingSet[T comparable] struct {
	maxTotal, maxPer int
	seq              uint64
	items            map[T]evictEntry
	per              map[netip.Prefix]int
}

type evictEntry struct {
	prefix netip.Prefix
	seq    uint64 // arrival order
}

func newEvictingSet[T comparable](maxTotal, maxPer int) evictingSet[T] {
	return evictingSet[T]{maxTotal: max(1, maxTotal), maxPer: max(1, maxPer),
		items: map[T]evictEntry{}, per: map[netip.Prefix]int{}}
}

// add admits x in prefix p and returns the item it evicted to make room, if any.
// Adding an item already held does nothing.
func (s *evictingSet[T]) add(x T, p netip.Prefix) (evicted T, ok bool) {
	if _, held := s.items[x]; held {
		return evicted, false
	}
	switch {
	case s.per[p] >= s.maxPer:
		evicted, ok = s.oldest(p, true)
	case len(s.items) >= s.maxTotal:
		evicted, ok = s.oldest(p, false)
	}
	if ok {
		s.remove(evicted)
	}
	s.seq++
	s.items[x] = evictEntry{prefix: p, seq: s.seq}
	s.per[p]++
	return evicted, ok
}

// oldest returns the earliest item, in prefix p only when inPrefix. The sets are
// small (tens of items), so a scan is cheaper than keeping an ordered index.
func (s *evictingSet[T]) oldest(p netip.Prefix, inPrefix bool) (T, bool) {
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

// remove drops x; it reports whether x was held.
func (s *evictingSet[T]) remove(x T) bool {
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

// len returns the number of items held.
func (s *evictingSet[T]) len() int { return len(s.items) }

// count returns the items held in prefix p.
func (s *evictingSet[T]) count(p netip.Prefix) int { return s.per[p] }
