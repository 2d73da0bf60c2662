// Package lobby is how players find matches: the Entry that describes a match, its
// announcement on the local network by DNS-SD over multicast DNS, the browser that
// finds those announcements, and the client of list servers (cmd/tanklist) that
// hosts register with and players read.
//
// On the local network a host announces itself with an Announcer: it answers
// queries for the service _treadline._udp on port 5353 with a PTR, SRV, TXT and A
// record, as any DNS-SD tool expects (avahi-browse -r _treadline._udp finds it). The
// TXT record carries the match: txtvers=1, n (name), m (map), p and c (players and
// capacity), pw (1: a passphrase is needed), v (protocol version) and fp (the
// certificate's SHA-256 fingerprint), and fleet=1 for a fleet's game server.
//
// A Browser (or Find, once) asks for them on each interface, for answers by unicast
// to itself, and keeps what they announce. Network input is hostile: an answer's
// match is addressed where the answer came from, never where it says; messages over
// 9000 bytes, ones that do not decode and announcements that break an Entry's rules
// are dropped and counted; answers are rate-limited per source address and in all;
// at most MaxPerSource matches from one address and MaxEntries in all are kept, each
// until it stops answering; a fingerprint announced from a second address, or an
// address with a second fingerprint, is a conflict, counted, and the first stands. A
// match found on the local network is trusted as far as that network is: the
// fingerprint it announces is only as good as the network that carried it.
//
//	entries, stats, err := lobby.Find(ctx, lobby.BrowseConfig{}, time.Second)
//	for _, e := range entries {
//		fmt.Println(e.Line()) // ann  192.0.2.7:7777  map dunes  players 2/8  ping 1 ms  via lan  tanks -join 192.0.2.7:7777#…
//	}
//
// Time: the announcer's answer rate and the browser's ages, pings and rates run on
// the Now functions of their configurations (real time by default): they are network
// timings.
package lobby
