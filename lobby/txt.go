package lobby

import (
	"fmt"
	"strconv"
	"strings"
)

// The keys of an announcement's TXT record (DNS-SD, RFC 6763 section 6): short, one
// per string, "key=value".
const (
	keyTxtVers     = "txtvers" // "1": this layout
	keyName        = "n"       // Entry.Name
	keyMap         = "m"       // Entry.Map
	keyPlayers     = "p"       // Entry.Players
	keyCapacity    = "c"       // Entry.Capacity
	keyPassphrase  = "pw"      // "1" when a passphrase is needed, else "0"
	keyVersion     = "v"       // Entry.Version
	keyFingerprint = "fp"      // Entry.Fingerprint
	keyFleet       = "fleet"   // "1" for a fleet's game server
)

// Limits on a TXT record, far above what an entry needs (about 140 bytes), so that
// a hostile one is refused before it is looked at closely.
const (
	maxTXTStrings = 16
	maxTXTBytes   = 1024
)

// txtOf returns the TXT strings announcing e (its address and ping aside), as
// they read once decoded; records escapes them for the wire.
func txtOf(e Entry) []string {
	flag := func(b bool) string {
		if b {
			return "1"
		}
		return "0"
	}
	txt := []string{
		keyTxtVers + "=1",
		keyName + "=" + e.Name,
		keyMap + "=" + e.Map,
		keyPlayers + "=" + strconv.Itoa(e.Players),
		keyCapacity + "=" + strconv.Itoa(e.Capacity),
		keyPassphrase + "=" + flag(e.Passphrase),
		keyVersion + "=" + strconv.Itoa(e.Version),
		keyFingerprint + "=" + e.Fingerprint,
	}
	if e.Fleet {
		txt = append(txt, keyFleet+"=1")
	}
	return txt
}

// parseTXT decodes an announcement's TXT strings into an entry without its address.
// Unknown keys are ignored and the first of repeated keys wins (RFC 6763, 6.4); a
// record over its limits, a missing or malformed field, or an entry that fails
// Check is an error wrapping ErrBadEntry.
func parseTXT(txt []string) (Entry, error) {
	if len(txt) > maxTXTStrings {
		return Entry{}, fmt.Errorf("%w: %d TXT strings, at most %d", ErrBadEntry, len(txt), maxTXTStrings)
	}
	total := 0
	for _, s := range txt {
		total += len(s) + 1
	}
	if total > maxTXTBytes {
		return Entry{}, fmt.Errorf("%w: TXT record of %d bytes, at most %d", ErrBadEntry, total, maxTXTBytes)
	}
	kv := make(map[string]string, len(txt))
	for _, s := range txt {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			continue // a boolean attribute or an empty key: none of ours
		}
		k = strings.ToLower(k)
		if _, seen := kv[k]; !seen {
			kv[k] = v
		}
	}
	if kv[keyTxtVers] != "1" {
		return Entry{}, fmt.Errorf("%w: txtvers %q, want 1", ErrBadEntry, clip(kv[keyTxtVers]))
	}
	var e Entry
	var err error
	num := func(key string) int {
		n, perr := strconv.Atoi(kv[key])
		if perr != nil || n < 0 || strings.HasPrefix(kv[key], "+") {
			err = fmt.Errorf("%w: %s=%q is not a count", ErrBadEntry, key, clip(kv[key]))
		}
		return n
	}
	flag := func(key string) bool {
		v := kv[key]
		if v != "0" && v != "1" && v != "" {
			err = fmt.Errorf("%w: %s=%q, want 0 or 1", ErrBadEntry, key, clip(v))
		}
		return v == "1"
	}
	e.Name, e.Map, e.Fingerprint = kv[keyName], kv[keyMap], kv[keyFingerprint]
	e.Players, e.Capacity, e.Version = num(keyPlayers), num(keyCapacity), num(keyVersion)
	e.Passphrase, e.Fleet = flag(keyPassphrase), flag(keyFleet)
	if err != nil {
		return Entry{}, err
	}
	if err := e.Check(); err != nil {
		return Entry{}, err
	}
	return e, nil
}

// escapeTXT writes a TXT string in DNS presentation format (RFC 1035, section 5.1),
// the form miekg/dns packs from: '"' and '\' as \X, bytes outside printable ASCII as
// \DDD, so that every byte of s reaches the wire as it is.
func escapeTXT(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < ' ' || c > '~':
			b.WriteByte('\\')
			b.WriteByte('0' + c/100)
			b.WriteByte('0' + c/10%10)
			b.WriteByte('0' + c%10)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// unescapeTXT reads a TXT string in DNS presentation format, as miekg/dns unpacks it,
// back into its bytes: \DDD (three decimal digits, at most 255) is that byte and \X
// is X (RFC 1035, section 5.1; RFC 6763, section 4.3). A dangling '\' or a bad \DDD
// is an error wrapping ErrBadEntry.
func unescapeTXT(s string) (string, error) {
	i := strings.IndexByte(s, '\\')
	if i < 0 {
		return s, nil
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	for ; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b = append(b, c)
			continue
		}
		rest := s[i+1:]
		switch {
		case rest == "":
			return "", fmt.Errorf("%w: TXT string ends in an escape", ErrBadEntry)
		case isDigit(rest[0]):
			if len(rest) < 3 || !isDigit(rest[1]) || !isDigit(rest[2]) {
				return "", fmt.Errorf("%w: TXT escape %q is not \\DDD", ErrBadEntry, clip(rest[:min(3, len(rest))]))
			}
			v := int(rest[0]-'0')*100 + int(rest[1]-'0')*10 + int(rest[2]-'0')
			if v > 255 {
				return "", fmt.Errorf("%w: TXT escape \\%s is past 255", ErrBadEntry, rest[:3])
			}
			b = append(b, byte(v))
			i += 3
		default:
			b = append(b, rest[0])
			i++
		}
	}
	return string(b), nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
