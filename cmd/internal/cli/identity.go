package cli

import (
	"crypto/tls"
	"flag"
	"time"

	"github.com/treadline/treadline/net"
)

// Identity is what -identity and -new-identity say about where a host keeps its key
// and certificate, so that a restarted host keeps its fingerprint.
type Identity struct {
	// Path is the identity file; "" means net.DefaultIdentityPath().
	Path string
	// Rotate makes a new identity, replacing the kept one.
	Rotate bool
}

// IdentityFlags registers -identity and -new-identity on fs.
func IdentityFlags(fs *flag.FlagSet) *Identity {
	id := &Identity{}
	fs.StringVar(&id.Path, "identity", "", "`file` keeping the host's key and certificate, so restarts keep its fingerprint (default: host-identity.pem in the user's config directory)")
	fs.BoolVar(&id.Rotate, "new-identity", false, "make a new host key and certificate, replacing the kept one (players must trust the new fingerprint)")
	return id
}

// Load returns the kept identity, making and keeping one when there is none or when
// Rotate is set; created reports a new one and path where it is kept. A file that
// cannot be read, written or parsed is a *UsageError naming -identity.
func (id *Identity) Load(now time.Time) (cert *tls.Certificate, path string, created bool, err error) {
	path = id.Path
	if path == "" {
		if path = net.DefaultIdentityPath(); path == "" {
			return nil, "", false, Usagef("identity", "is needed: this user has no config directory to keep the host's identity in; give a file")
		}
	}
	c, created, err := net.LoadIdentity(path, id.Rotate, now)
	if err != nil {
		return nil, path, false, Usagef("identity", "%s: %v", path, err)
	}
	return &c, path, created, nil
}
