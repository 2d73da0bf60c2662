package wire

// A full update is FullUpdateSize(n) = 33 + 4n bytes: a partial update followed by
//
//	count u8 (0…4) | count × (angle u16, rate i16)
//
// Angles are 2π/65536 rad per unit, wrapping; rates 1/1024 rad/s per unit.

func appendFullUpdate(b []byte, u *Update) ([]byte, error) {
	if err := checkArticulations(&u.State); err != nil {
		return b, err
	}
	out, err := appendPartialUpdate(b, u)
	if err != nil {
		return b, err
	}
	return appendArticulations(out, &u.State), nil
}

func parseFullUpdate(r *reader, u *Update) {
	parsePartialUpdate(r, u)
	parseArticulations(r, &u.State)
}
