package net

import (
	"crypto/ecdsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// identityLifetime is how long a kept host certificate is valid. Clients check the
// fingerprint, not the dates, so it only has to outlive the file.
const identityLifetime = 20 * 365 * 24 * time.Hour

// DefaultIdentityPath returns the file a host keeps its key and certificate in, in
// the user's configuration directory, or "" when there is none.
func DefaultIdentityPath() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "treadline", "host-identity.pem")
}

// LoadIdentity returns the host identity (private key and self-signed certificate)
// kept in the PEM file at path, so that a restarted host keeps its fingerprint and
// players who trusted it on first use can join again. When the file does not exist,
// or rotate is set, it makes a new identity and writes it there (mode 0600, directory
// created), and created is true. A file that exists but does not hold a key and its
// certificate is an error, never silently replaced.
func LoadIdentity(path string, rotate bool, now time.Time) (cert tls.Certificate, created bool, err error) {
	if path == "" {
		return tls.Certificate{}, false, errors.New("identity: no file")
	}
	if !rotate {
		b, err := os.ReadFile(path)
		switch {
		case err == nil:
			cert, err := tls.X509KeyPair(b, b)
			if err != nil {
				return tls.Certificate{}, false, fmt.Errorf("identity %s: %w (remove the file or rotate the identity to make a new one)", path, err)
			}
			return cert, false, nil
		case !errors.Is(err, os.ErrNotExist):
			return tls.Certificate{}, false, fmt.Errorf("identity: %w", err)
		}
	}
	cert, err = newCertificate(now, identityLifetime)
	if err != nil {
		return tls.Certificate{}, false, fmt.Errorf("identity: %w", err)
	}
	if err := writeIdentity(path, cert); err != nil {
		return tls.Certificate{}, false, fmt.Errorf("identity: %w", err)
	}
	return cert, true, nil
}

// writeIdentity writes cert's key and certificate to path atomically, readable by the
// user alone.
func writeIdentity(path string, cert tls.Certificate) error {
	key, ok := cert.PrivateKey.(*ecdsa.PrivateKey)
	if !ok {
		return errors.New("unexpected private key type")
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	data := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	data = append(data, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]})...)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".host-identity-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// hostCertificate returns *kept, or a fresh day-long certificate when kept is nil.
func hostCertificate(kept *tls.Certificate, now time.Time) (tls.Certificate, error) {
	if kept != nil {
		if len(kept.Certificate) == 0 || kept.PrivateKey == nil {
			return tls.Certificate{}, errors.New("identity has no certificate or key")
		}
		return *kept, nil
	}
	return selfSigned(now)
}
