package record

import (
	"reflect"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/net/wire"
)

// TestOlderClaimReadsWithFourNone: a HitClaim of protocol 4 named four applied
// updates in 93 bytes; read from a recording of that version it is the same claim
// with four more updates of none.
func TestOlderClaimReadsWithFourNone(t *testing.T) {
	claim := &wire.HitClaim{Shooter: 5, Shot: 2, Target: 9, Time: 1.5, Impact: 1.496,
		Local: mgl64.Vec3{-3.45, 1.2, 1.8}, Observer: mgl64.Vec3{10, 2, -30}, Reckon: 0x28,
		Fired: 0.75, Origin: mgl64.Vec3{10, 2, -30}, Direction: mgl64.Vec3{0, 1, 0}}
	for i := range claim.Applied {
		claim.Applied[i] = wire.AppliedUpdate{At: claim.Time} // none: the offset a converted claim reads
	}
	claim.Applied[0] = wire.AppliedUpdate{Update: 1.2, At: 1.4}
	claim.Applied[3] = wire.AppliedUpdate{Update: 0.2, At: 0.25}
	now, err := claim.Append(nil)
	if err != nil {
		t.Fatal(err)
	}
	// The same claim as protocol 4 wrote it: its version byte, and only the first
	// four applied updates.
	old := append([]byte{4}, now[1:oldClaimApplied]...)
	old = append(old, now[oldClaimApplied+(wire.ClaimApplied-4)*8:]...)
	if len(old) != oldClaimSize {
		t.Fatalf("a protocol 4 claim of %d bytes, want %d", len(old), oldClaimSize)
	}
	r := &Reader{proto: 4}
	m, n, err := wire.Parse(r.restamp(old))
	if err != nil {
		t.Fatalf("the older claim does not read: %v", err)
	}
	if n != len(now) {
		t.Errorf("read %d bytes, want %d", n, len(now))
	}
	got, ok := m.(*wire.HitClaim)
	if !ok {
		t.Fatalf("read a %T", m)
	}
	if !reflect.DeepEqual(got.Applied, claim.Applied) || got.Shooter != claim.Shooter || got.Fired != claim.Fired ||
		got.Origin != claim.Origin || got.Direction != claim.Direction {
		t.Errorf("read %+v\nwant %+v", got, claim)
	}
	// A message of this version, or another type, passes as it is.
	r5 := &Reader{proto: wire.Version}
	if b := r5.restamp(now); &b[0] != &now[0] {
		t.Error("a claim of this version was copied")
	}
}
