package main

import (
	"fmt"
	"net/netip"
)

// Which addresses a list probes. A public list probes only global unicast
// addresses (RFC 6890's registries, globally reachable); with -allow-private it
// probes private ones too; it never probes an address no host can have, one that
// is translated or tunnelled to another (NAT64, 6to4, Teredo), or one with a zone
// (the list server's own interfaces).
var (
	// neverProbed holds the prefixes refused by every list.
	neverProbed = prefixes(
		"0.0.0.0/8",      // this network
		"192.0.0.0/24",   // IETF protocol assignments (NAT64 discovery, DS-Lite)
		"192.88.99.0/24", // 6to4 relay anycast
		"224.0.0.0/4",    // multicast
		"240.0.0.0/4",    // reserved, and the broadcast address
		"::/96",          // unspecified, loopback's neighbours, IPv4-compatible
		"64:ff9b::/96",   // NAT64
		"64:ff9b:1::/48", // local-use NAT64
		"100::/64",       // discard
		"2001::/23",      // IETF protocol assignments (Teredo, ORCHID, benchmarking)
		"2002::/16",      // 6to4
		"fec0::/10",      // site-local, deprecated
		"ff00::/8",       // multicast
	)
	// privateProbed holds the prefixes only a list with -allow-private probes.
	privateProbed = prefixes(
		"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", // private
		"100.64.0.0/10",                                     // shared address space (carrier NAT; cloud metadata at 100.100.100.200)
		"127.0.0.0/8",                                       // loopback
		"169.254.0.0/16",                                    // link-local (cloud metadata at 169.254.169.254)
		"198.18.0.0/15",                                     // benchmarking
		"192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", // documentation
		"::1/128",                    // loopback
		"fc00::/7",                   // unique local
		"fe80::/10",                  // link-local
		"2001:db8::/32", "3fff::/20", // documentation
	)
	// globalUnicast6 is where public IPv6 unicast addresses are allocated.
	globalUnicast6 = netip.MustParsePrefix("2000::/3")
)

func prefixes(s ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(s))
	for i, p := range s {
		out[i] = netip.MustParsePrefix(p)
	}
	return out
}

func within(a netip.Addr, ps []netip.Prefix) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// probeable reports whether a list probes a: nil, or why not.
func probeable(a netip.Addr, allowPrivate bool) error {
	a = a.Unmap()
	switch {
	case !a.IsValid():
		return fmt.Errorf("no address")
	case a.Zone() != "":
		return fmt.Errorf("address %s has a zone: give an address without one", a)
	case a.IsUnspecified() || within(a, neverProbed) && !a.IsLoopback():
		return fmt.Errorf("address %s is not one a host can be joined at", a)
	case within(a, privateProbed):
		if allowPrivate {
			return nil
		}
		return fmt.Errorf("address %s is not public: this list only lists matches the internet can join (a list for one site runs with -allow-private)", a)
	case a.Is6() && !globalUnicast6.Contains(a):
		return fmt.Errorf("address %s is not one a host can be joined at", a)
	}
	return nil
}
