package net

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// ErrFingerprintMismatch reports that the host's certificate is not the one pinned or
// remembered for its address: either the host's identity changed (it was rotated, or
// the host keeps none and restarted) or someone is in the middle.
var ErrFingerprintMismatch = errors.New("host certificate fingerprint mismatch")

// Fingerprint returns the hex SHA-256 of a DER certificate, as hosts print it.
func Fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:])
}

// normalizeFingerprint lower-cases a fingerprint and strips colons and spaces.
func normalizeFingerprint(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.NewReplacer(":", "", " ", "").Replace(s)
}

// SplitJoin splits a "-join" argument of the form host:port#fingerprint into the
// address and the (possibly empty) fingerprint pin.
func SplitJoin(arg string) (addr, fingerprint string, err error) {
	addr, fingerprint, _ = strings.Cut(arg, "#")
	if addr == "" {
		return "", "", errors.New("join: empty address")
	}
	if fingerprint != "" {
		fingerprint = normalizeFingerprint(fingerprint)
		if b, err := hex.DecodeString(fingerprint); err != nil || len(b) != sha256.Size {
			return "", "", fmt.Errorf("join: fingerprint %q is not 64 hex digits", fingerprint)
		}
	}
	return addr, fingerprint, nil
}

// selfSigned makes a fresh ECDSA P-256 certificate valid for a day, for a host that
// keeps no identity.
func selfSigned(now time.Time) (tls.Certificate, error) { return newCertificate(now, 24*time.Hour) }

// newCertificate makes an ECDSA P-256 key and a self-signed certificate for it, valid
// from an hour before now for lifetime.
func newCertificate(now time.Time, lifetime time.Duration) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("generate key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("serial: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "treadline host"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(lifetime),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"treadline"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("create certificate: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

func hostTLS(cert tls.Certificate) *tls.Config {
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		NextProtos:   []string{ALPN},
		MinVersion:   tls.VersionTLS13,
	}
}

// clientTLS verifies the host's certificate by fingerprint: against pin when set, and
// against the known-hosts store when known is set (remembering it on first use). The certificate chain
// itself is not checked against any authority: hosts are self-signed.
func clientTLS(addr, pin string, known *knownHosts) *tls.Config {
	pin = normalizeFingerprint(pin)
	return &tls.Config{
		InsecureSkipVerify: true, // replaced by the fingerprint check below
		NextProtos:         []string{ALPN},
		MinVersion:         tls.VersionTLS13,
		ServerName:         "treadline",
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 {
				return errors.New("host sent no certificate")
			}
			got := Fingerprint(raw[0])
			if pin != "" && got != pin {
				return fmt.Errorf("%w: the host presented %s, pinned %s", ErrFingerprintMismatch, got, pin)
			}
			if known == nil {
				return nil
			}
			return known.check(addr, got)
		},
	}
}

// DefaultKnownHostsPath returns the trust-on-first-use file in the user's
// configuration directory, or "" when there is none.
func DefaultKnownHostsPath() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "treadline", "known_hosts")
}

// knownHosts is a trust-on-first-use store: lines of "address fingerprint".
type knownHosts struct {
	path string
	mu   sync.Mutex
}

// KnownFingerprints reads the trust-on-first-use file at path (if empty,
// DefaultKnownHostsPath()) and returns the fingerprint it remembers for each address.
// A missing file remembers none. Lines that are not "address fingerprint" are
// skipped; for an address listed twice, the first line counts, as at a join.
func KnownFingerprints(path string) (map[string]string, error) {
	if path == "" {
		path = DefaultKnownHostsPath()
	}
	known := map[string]string{}
	f, err := os.Open(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return known, nil
	case err != nil:
		return nil, fmt.Errorf("known hosts: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) == 2 {
			if _, seen := known[fields[0]]; !seen {
				known[fields[0]] = fields[1]
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("known hosts: %w", err)
	}
	return known, nil
}

// check accepts fp for addr if it is remembered, remembers it if addr is new, and
// returns ErrFingerprintMismatch if addr is remembered with another fingerprint.
func (k *knownHosts) check(addr, fp string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	known, err := KnownFingerprints(k.path)
	if err != nil {
		return err
	}
	if old, ok := known[addr]; ok {
		if old == fp {
			return nil
		}
		return fmt.Errorf("%w: the host now presents %s but %s remembers %s; "+
			"if the host's identity changed, remove that line or join with the new fingerprint pinned (#%s)",
			ErrFingerprintMismatch, fp, k.path, old, fp)
	}
	if err := os.MkdirAll(filepath.Dir(k.path), 0o700); err != nil {
		return fmt.Errorf("known hosts: %w", err)
	}
	w, err := os.OpenFile(k.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("known hosts: %w", err)
	}
	_, werr := fmt.Fprintf(w, "%s %s\n", addr, fp)
	if cerr := w.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("known hosts: %w", werr)
	}
	return nil
}
