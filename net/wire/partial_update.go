package wire

// A partial update is PartialUpdateSize (32) bytes:
//
//	actor u16 | seq u16 | time u32 (ms) | kinematic block (24 bytes, 192 bits)
//
// The kinematic block packs, most significant bit first: x (24 bits), y (22), z (24)
// in signed millimetres; the smallest-three orientation (2-bit index, 3 × 10 bits);
// velocity (3 × 12 bits, 1/64 m/s); acceleration (3 × 9 bits, 1/8 m/s²); angular
// velocity (3 × 9 bits, 1/64 rad/s). PROTOCOL.md has the table.

func appendPartialUpdate(b []byte, u *Update) ([]byte, error) {
	pos, err := kinematicCodes(&u.State)
	if err != nil {
		return b, err
	}
	q, err := canonicalQuat(u.State.Orientation)
	if err != nil {
		return b, err
	}
	out, err := appendUpdateHeader(b, u)
	if err != nil {
		return b, err
	}
	return appendKinematics(out, pos, &u.State, q), nil
}

func parsePartialUpdate(r *reader, u *Update) {
	if !r.need(PartialUpdateSize) {
		return
	}
	parseUpdateHeader(r, u)
	parseKinematics(r, &u.State)
}
