package wire

import (
	"encoding/hex"
	"testing"
)

// The expected key and proof were computed independently (Python's hashlib.pbkdf2_hmac
// and hmac) from the documented construction.
const (
	katKey   = "cb703162af94d094d822951f2b60604a63b5b3da19d879f0c91324efb0ac2cbd"
	katProof = "8392fde07ddb57390b8a5688807bab6c8488928092032cd59f224b83d8e4e49e"
)

func TestJoinProofKnownAnswer(t *testing.T) {
	var salt [SaltSize]byte
	var nonce [NonceSize]byte
	copy(salt[:], seq(0x00, SaltSize))
	copy(nonce[:], seq(0x20, NonceSize))
	key := DeriveKey("correct horse", salt)
	if got := hex.EncodeToString(key[:]); got != katKey {
		t.Fatalf("DeriveKey = %s, want %s", got, katKey)
	}
	proof := Proof(key, nonce, "Ada")
	if got := hex.EncodeToString(proof[:]); got != katProof {
		t.Fatalf("Proof = %s, want %s", got, katProof)
	}

	other := nonce
	other[0] ^= 1
	wrongKey := DeriveKey("correct horse!", salt)
	otherSalt := salt
	otherSalt[15] ^= 0x80
	cases := []struct {
		name  string
		key   [KeySize]byte
		nonce [NonceSize]byte
		who   string
		want  bool
	}{
		{"right", key, nonce, "Ada", true},
		{"wrong passphrase", wrongKey, nonce, "Ada", false},
		{"other salt", DeriveKey("correct horse", otherSalt), nonce, "Ada", false},
		{"replayed on another nonce", key, other, "Ada", false},
		{"other name", key, nonce, "Bob", false},
	}
	for _, tc := range cases {
		if got := VerifyProof(tc.key, tc.nonce, tc.who, proof); got != tc.want {
			t.Errorf("%s: VerifyProof = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestNewChallengeIsFresh(t *testing.T) {
	salt := NewSalt()
	if salt == ([SaltSize]byte{}) {
		t.Fatal("NewSalt returned zeros")
	}
	a, b := NewChallenge(salt, true), NewChallenge(salt, true)
	if a.Nonce == b.Nonce {
		t.Error("two challenges share a nonce")
	}
	if a.Salt != salt || !a.PassphraseRequired {
		t.Errorf("challenge %+v lost its salt or flag", a)
	}
}
