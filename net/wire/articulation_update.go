package wire

import "github.com/go-gl/mathgl/mgl64"

// An articulation update is ArticulationUpdateSize(n) = 9 + 4n bytes:
//
//	actor u16 | seq u16 | time u32 (ms) | count u8 (0…4) | count × (angle u16, rate i16)

func appendArticulationUpdate(b []byte, u *Update) ([]byte, error) {
	if err := checkArticulations(&u.State); err != nil {
		return b, err
	}
	out, err := appendUpdateHeader(b, u)
	if err != nil {
		return b, err
	}
	return appendArticulations(out, &u.State), nil
}

func parseArticulationUpdate(r *reader, u *Update) {
	parseUpdateHeader(r, u)
	u.State.Orientation = mgl64.QuatIdent()
	parseArticulations(r, &u.State)
}
