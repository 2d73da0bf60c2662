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

// txtOf returns the TXT strings announcing e (its address and ping aside).
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
