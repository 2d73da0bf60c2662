package lobby

import (
	"fmt"
	stdnet "net"
	"net/netip"
	"strconv"
	"strings"

	"github.com/miekg/dns"
)

// Service is the DNS-SD service type Treadline hosts announce on the local network.
const Service = "_treadline._udp"

// The DNS names of the announcements, and their time to live.
const (
	serviceName  = Service + ".local."
	servicesName = "_services._dns-sd._udp.local." // DNS-SD service enumeration
	recordTTL    = 120                             // seconds, RFC 6762's for host records
)

// Limits on what a browser reads: an mDNS message fits 9000 bytes (RFC 6762,
// section 17), and one answer announces at most maxInstances matches.
const (
	maxPacket    = 9000
	maxInstances = 8
)

// instanceLabel is a host's DNS-SD instance name: the fingerprint's first 16 digits
// and the port tell hosts apart, the match's own name travels in the TXT record.
func instanceLabel(fp string, port int) string {
	return "treadline-" + fp[:16] + "-" + strconv.Itoa(port)
}

// records answers one DNS question about the announced entry e, listening on port,
// reachable at ips; nil when the question is not about it.
func records(q dns.Question, e Entry, port int, ips []stdnet.IP) []dns.RR {
	label := instanceLabel(e.Fingerprint, port)
	instance := label + "." + serviceName
	target := label + ".local."
	hdr := func(name string, t uint16) dns.RR_Header {
		return dns.RR_Header{Name: name, Rrtype: t, Class: dns.ClassINET, Ttl: recordTTL}
	}
	ptr := &dns.PTR{Hdr: hdr(serviceName, dns.TypePTR), Ptr: instance}
	srv := &dns.SRV{Hdr: hdr(instance, dns.TypeSRV), Port: uint16(port), Target: target}
	txt := &dns.TXT{Hdr: hdr(instance, dns.TypeTXT), Txt: escapeAll(txtOf(e))}
	var as []dns.RR
	for _, ip := range ips {
		if ip4 := ip.To4(); ip4 != nil {
			as = append(as, &dns.A{Hdr: hdr(target, dns.TypeA), A: ip4})
		}
	}
	name := strings.ToLower(q.Name)
	want := func(t uint16) bool { return q.Qtype == t || q.Qtype == dns.TypeANY }
	switch {
	case name == servicesName && want(dns.TypePTR):
		return []dns.RR{&dns.PTR{Hdr: hdr(servicesName, dns.TypePTR), Ptr: serviceName}}
	case name == serviceName && want(dns.TypePTR):
		return append([]dns.RR{ptr, srv, txt}, as...)
	case name == strings.ToLower(instance):
		var out []dns.RR
		if want(dns.TypeSRV) {
			out = append(out, srv)
		}
		if want(dns.TypeTXT) {
			out = append(out, txt)
		}
		return append(out, as...)
	case name == strings.ToLower(target) && want(dns.TypeA):
		return as
	}
	return nil
}

// query returns a one-shot mDNS query for the service's instances, asking for
// answers by unicast (RFC 6762, section 5.4) to the socket that sends it.
func query(id uint16) ([]byte, error) {
	m := &dns.Msg{MsgHdr: dns.MsgHdr{Id: id}}
	m.Question = []dns.Question{{Name: serviceName, Qtype: dns.TypePTR, Qclass: dns.ClassINET | 1<<15}}
	return m.Pack()
}

// parseAnswer decodes an mDNS answer that came from src and returns the matches it
// announces, each addressed at src's IP and its SRV port (never at addresses the
// answer claims: an answer can only point at where it came from), with the query id
// it answers and how many announcements in it were bad. An error is a message that
// is not an mDNS answer at all.
func parseAnswer(b []byte, src netip.Addr) (entries []Entry, id uint16, bad int, err error) {
	if len(b) > maxPacket {
		return nil, 0, 0, fmt.Errorf("%w: message of %d bytes, at most %d", ErrBadEntry, len(b), maxPacket)
	}
	var m dns.Msg
	if err := m.Unpack(b); err != nil {
		return nil, 0, 0, fmt.Errorf("%w: %v", ErrBadEntry, err)
	}
	if !m.Response || m.Opcode != dns.OpcodeQuery || m.Rcode != dns.RcodeSuccess {
		return nil, 0, 0, fmt.Errorf("%w: not an mDNS answer", ErrBadEntry)
	}
	rs := collectRecords(&m)
	entries, bad = rs.entries(src)
	return entries, m.Id, bad, nil
}

// answerRecords holds what an mDNS answer says of the service: the instances its PTR
// records name, and the first SRV port and TXT strings given for each name, the
// strings decoded from miekg/dns's presentation format (nil when one does not
// decode).
type answerRecords struct {
	instances []string
	ports     map[string]int
	txts      map[string][]string
}

// collectRecords gathers the service's records from m's answer and extra sections.
func collectRecords(m *dns.Msg) answerRecords {
	rs := answerRecords{ports: map[string]int{}, txts: map[string][]string{}}
	for _, rrs := range [][]dns.RR{m.Answer, m.Extra} {
		for _, rr := range rrs {
			name := strings.ToLower(rr.Header().Name)
			switch rr := rr.(type) {
			case *dns.PTR:
				if name == serviceName {
					rs.instances = append(rs.instances, strings.ToLower(rr.Ptr))
				}
			case *dns.SRV:
				if _, ok := rs.ports[name]; !ok {
					rs.ports[name] = int(rr.Port)
				}
			case *dns.TXT:
				if _, ok := rs.txts[name]; !ok {
					rs.txts[name] = unescapeAll(rr.Txt)
				}
			}
		}
	}
	return rs
}

// entries returns the matches the records announce, each addressed at src's IP and its
// SRV port, and how many announcements were bad (incomplete, undecodable, or past
// maxInstances).
func (rs answerRecords) entries(src netip.Addr) (entries []Entry, bad int) {
	seen := map[string]bool{}
	for _, inst := range rs.instances {
		if seen[inst] {
			continue
		}
		seen[inst] = true
		if len(entries)+bad >= maxInstances {
			bad++
			continue
		}
		port, ok := rs.ports[inst]
		txt, tok := rs.txts[inst]
		if !ok || !tok || txt == nil || port == 0 {
			bad++
			continue
		}
		e, err := parseTXT(txt)
		if err != nil {
			bad++
			continue
		}
		e.Addr = joinHostPort(src, port)
		entries = append(entries, e)
	}
	return entries, bad
}

// escapeAll returns the TXT strings txt in presentation format, for miekg/dns to pack.
func escapeAll(txt []string) []string {
	out := make([]string, len(txt))
	for i, s := range txt {
		out[i] = escapeTXT(s)
	}
	return out
}

// unescapeAll returns the TXT strings miekg/dns unpacked as the bytes they hold; nil
// when one does not decode.
func unescapeAll(txt []string) []string {
	out := make([]string, len(txt))
	for i, s := range txt {
		var err error
		if out[i], err = unescapeTXT(s); err != nil {
			return nil
		}
	}
	return out
}
