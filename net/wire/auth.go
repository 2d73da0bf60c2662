package wire

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
)

// KeyIterations is the PBKDF2-HMAC-SHA256 iteration count DeriveKey uses. It makes
// each guess at a passphrase cost an attacker who recorded a proof as much as a join.
const KeyIterations = 1 << 16

// KeySize is the size of a derived passphrase key in bytes.
const KeySize = 32

// proofLabel separates join proofs from any other use of the key.
const proofLabel = "treadline join proof"

// DeriveKey derives the join key from a passphrase and the host's salt with
// PBKDF2-HMAC-SHA256 (KeyIterations rounds). The passphrase itself never crosses the
// wire. It takes tens of milliseconds: a host derives once per run, a client once
// per join. Safe for concurrent use.
func DeriveKey(passphrase string, salt [SaltSize]byte) [KeySize]byte {
	k, err := pbkdf2.Key(sha256.New, passphrase, salt[:], KeyIterations, KeySize)
	if err != nil {
		// Only a FIPS-mode policy refusal can fail here; it is a deployment error.
		panic(fmt.Sprintf("wire: derive key: %v", err))
	}
	var out [KeySize]byte
	copy(out[:], k)
	return out
}

// Proof returns the join proof for a player name: HMAC-SHA256 under key of the
// label "treadline join proof", the protocol version byte, the challenge nonce, and
// the name's length and bytes. Binding the name stops a proof seen for one name from
// admitting another. Safe for concurrent use.
func Proof(key [KeySize]byte, nonce [NonceSize]byte, name string) [ProofSize]byte {
	mac := hmac.New(sha256.New, key[:])
	mac.Write([]byte(proofLabel))
	mac.Write([]byte{Version})
	mac.Write(nonce[:])
	mac.Write([]byte{byte(len(name))})
	mac.Write([]byte(name))
	var out [ProofSize]byte
	mac.Sum(out[:0])
	return out
}

// VerifyProof reports, in constant time, whether proof is the join proof for name
// under key and nonce.
func VerifyProof(key [KeySize]byte, nonce [NonceSize]byte, name string, proof [ProofSize]byte) bool {
	want := Proof(key, nonce, name)
	return hmac.Equal(want[:], proof[:])
}

// NewChallenge returns a challenge with the given salt and a fresh random nonce from
// crypto/rand. A host makes one per connection and keeps it to verify the answer.
func NewChallenge(salt [SaltSize]byte, passphraseRequired bool) Challenge {
	c := Challenge{PassphraseRequired: passphraseRequired, Salt: salt}
	_, _ = rand.Read(c.Nonce[:]) // never fails since Go 1.24
	return c
}

// NewSalt returns a random salt from crypto/rand, for a host to use for one run.
func NewSalt() [SaltSize]byte {
	var s [SaltSize]byte
	_, _ = rand.Read(s[:])
	return s
}
