package lobby

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"math/big"
	"testing"
	"time"
)

// signedAt is when TestSignRegistration signs, on no clock but its own.
var signedAt = time.Unix(1.8e9, 0)

// testCert is a self-signed certificate for key, valid an hour around signedAt.
func testCert(t *testing.T, key any, pub any) tls.Certificate {
	t.Helper()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: signedAt.Add(-time.Hour), NotAfter: signedAt.Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// TestSignRegistration: a registration signed by its certificate's key verifies;
// changed after signing, signed by another key, or too old, it does not.
func TestSignRegistration(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	_, ed, _ := ed25519.GenerateKey(rand.Reader)
	now := signedAt
	for _, cert := range []tls.Certificate{testCert(t, ec, &ec.PublicKey), testCert(t, ed, ed.Public())} {
		sum := sha256.Sum256(cert.Certificate[0])
		reg := Registration{Entry: testEntry(), Port: 7777}
		reg.Fingerprint = hex.EncodeToString(sum[:])
		if err := SignRegistration(&reg, cert, now); err != nil {
			t.Fatal(err)
		}
		if err := reg.Verify(now.Add(time.Second)); err != nil {
			t.Errorf("%T: %v", cert.PrivateKey, err)
		}
		for name, f := range map[string]func(*Registration){
			"players changed": func(r *Registration) { r.Players++ },
			"name changed":    func(r *Registration) { r.Name = "bob" },
			"addr changed":    func(r *Registration) { r.Addr = "192.0.2.9:7777" },
			"another cert":    func(r *Registration) { r.Fingerprint = testFP },
			"no signature":    func(r *Registration) { r.Sig = nil },
			"signed long ago": func(r *Registration) { r.SignedAt -= (MaxSignatureAge + time.Second).Milliseconds() },
		} {
			r := reg
			f(&r)
			if err := r.Verify(now); !errors.Is(err, ErrNotSigned) {
				t.Errorf("%T, %s: %v, want ErrNotSigned", cert.PrivateKey, name, err)
			}
		}
		// Signed long ago, and the signature good: too old all the same.
		old := reg
		if err := SignRegistration(&old, cert, now.Add(-MaxSignatureAge-time.Second)); err != nil {
			t.Fatal(err)
		}
		if err := old.Verify(now); !errors.Is(err, ErrNotSigned) {
			t.Errorf("%T, signed %v before: %v, want ErrNotSigned", cert.PrivateKey, MaxSignatureAge+time.Second, err)
		}
	}
}
