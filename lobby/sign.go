package lobby

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// MaxSignatureAge is how far a registration's SignedAt may be from the list
// server's clock, either way: a registration is fresh for that long.
const MaxSignatureAge = 2 * time.Minute

// ErrNotSigned reports a registration not signed by the key of the certificate
// its fingerprint names; list servers answer it 403.
var ErrNotSigned = errors.New("lobby: registration not signed by the host's key")

// signedBytes returns what a registration's signature covers: a fixed preamble,
// then each field as name=value on its own line (strings quoted), in this order.
func (r Registration) signedBytes() []byte {
	b := []byte("treadline list registration v1\n")
	for _, f := range [...]struct{ k, v string }{
		{"addr", strconv.Quote(r.Addr)}, {"port", strconv.Itoa(r.Port)},
		{"name", strconv.Quote(r.Name)}, {"map", strconv.Quote(r.Map)},
		{"players", strconv.Itoa(r.Players)}, {"capacity", strconv.Itoa(r.Capacity)},
		{"passphrase", strconv.FormatBool(r.Passphrase)}, {"version", strconv.Itoa(r.Version)},
		{"fingerprint", strconv.Quote(r.Fingerprint)}, {"fleet", strconv.FormatBool(r.Fleet)},
		{"signed_at", strconv.FormatInt(r.SignedAt, 10)},
	} {
		b = append(b, f.k...)
		b = append(b, '=')
		b = append(b, f.v...)
		b = append(b, '\n')
	}
	return b
}

// SignRegistration signs r with cert's key at now: it sets r.Cert, r.SignedAt and
// r.Sig. The key must be ECDSA, Ed25519 or RSA, and r.Fingerprint cert's.
func SignRegistration(r *Registration, cert tls.Certificate, now time.Time) error {
	if len(cert.Certificate) == 0 {
		return errors.New("lobby: sign: no certificate")
	}
	signer, ok := cert.PrivateKey.(crypto.Signer)
	if !ok {
		return errors.New("lobby: sign: the certificate's key cannot sign")
	}
	r.Cert, r.SignedAt = cert.Certificate[0], now.UnixMilli()
	msg := r.signedBytes()
	var err error
	if _, ok := signer.(ed25519.PrivateKey); ok {
		r.Sig, err = signer.Sign(rand.Reader, msg, crypto.Hash(0))
	} else {
		sum := sha256.Sum256(msg)
		r.Sig, err = signer.Sign(rand.Reader, sum[:], crypto.SHA256)
	}
	if err != nil {
		return fmt.Errorf("lobby: sign: %w", err)
	}
	return nil
}

// Verify reports whether r is signed, within MaxSignatureAge of now, by the key
// of the certificate r.Cert whose SHA-256 is r.Fingerprint. It wraps ErrNotSigned.
func (r Registration) Verify(now time.Time) error {
	if len(r.Cert) == 0 || len(r.Sig) == 0 {
		return fmt.Errorf("%w: no signature (the host needs updating)", ErrNotSigned)
	}
	if sum := sha256.Sum256(r.Cert); hex.EncodeToString(sum[:]) != r.Fingerprint {
		return fmt.Errorf("%w: the certificate is not the fingerprint's", ErrNotSigned)
	}
	if d := now.Sub(time.UnixMilli(r.SignedAt)); d > MaxSignatureAge || d < -MaxSignatureAge {
		return fmt.Errorf("%w: signed %v from the list server's clock", ErrNotSigned, d.Round(time.Second))
	}
	c, err := x509.ParseCertificate(r.Cert)
	if err != nil {
		return fmt.Errorf("%w: certificate: %v", ErrNotSigned, err)
	}
	msg := r.signedBytes()
	sum := sha256.Sum256(msg)
	ok := false
	switch k := c.PublicKey.(type) {
	case *ecdsa.PublicKey:
		ok = ecdsa.VerifyASN1(k, sum[:], r.Sig)
	case ed25519.PublicKey:
		ok = ed25519.Verify(k, msg, r.Sig)
	case *rsa.PublicKey:
		ok = rsa.VerifyPKCS1v15(k, crypto.SHA256, sum[:], r.Sig) == nil
	}
	if !ok {
		return fmt.Errorf("%w: the signature does not verify", ErrNotSigned)
	}
	return nil
}
