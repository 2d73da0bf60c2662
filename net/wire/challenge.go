package wire

import "fmt"

// Sizes of the join proof's inputs and output, bytes.
const (
	// SaltSize is the size of the host's key-derivation salt.
	SaltSize = 16
	// NonceSize is the size of the host's per-connection challenge nonce.
	NonceSize = 32
	// ProofSize is the size of a join proof (an HMAC-SHA256).
	ProofSize = 32
)

// challengeSize is the encoded size of a Challenge.
const challengeSize = HeaderSize + 1 + SaltSize + NonceSize

// Challenge is the host's first message on a new control stream. It carries the salt
// from which both sides derive the passphrase key (see DeriveKey) and a fresh random
// nonce that the client's JoinRequest must prove knowledge of the key against (see
// Proof). Layout: header, flags u8 (bit 0: passphrase required; other bits zero),
// salt [16], nonce [32]: 51 bytes.
type Challenge struct {
	// PassphraseRequired reports that the host admits only players with the passphrase.
	PassphraseRequired bool
	// Salt is the host's key-derivation salt, chosen once per host run.
	Salt [SaltSize]byte
	// Nonce is random per connection, so a recorded proof cannot be replayed.
	Nonce [NonceSize]byte
}

// Type returns MsgChallenge.
func (m *Challenge) Type() MsgType { return MsgChallenge }

// Length returns the encoded size, 51 bytes.
func (m *Challenge) Length() int { return challengeSize }

// Append appends the encoded challenge.
func (m *Challenge) Append(b []byte) ([]byte, error) {
	b = appendHeader(b, MsgChallenge)
	var flags byte
	if m.PassphraseRequired {
		flags |= 1
	}
	b = append(b, flags)
	b = append(b, m.Salt[:]...)
	return append(b, m.Nonce[:]...), nil
}

func parseChallenge(b []byte) (*Challenge, int, error) {
	if err := checkHeader(b, MsgChallenge); err != nil {
		return nil, 0, err
	}
	r := reader{b: b, off: HeaderSize, ctx: "challenge"}
	m := &Challenge{}
	flags := r.u8()
	r.bytes(m.Salt[:])
	r.bytes(m.Nonce[:])
	if r.err != nil {
		return nil, 0, r.err
	}
	if flags&^1 != 0 {
		return nil, 0, fmt.Errorf("wire: challenge: unknown flags %#02x: %w", flags, ErrInvalid)
	}
	m.PassphraseRequired = flags&1 != 0
	return m, r.off, nil
}
