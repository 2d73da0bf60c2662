package wire

import (
	"bytes"
	"errors"
	"io"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
)

// stateA is exactly representable on the wire, so it decodes to itself.
func stateA() deadreckon.State {
	s := deadreckon.State{
		Time:            12.345,
		Position:        mgl64.Vec3{1.5, -2.25, 100.001},
		Velocity:        mgl64.Vec3{3.5, 0, -1.25},
		Acceleration:    mgl64.Vec3{0.25, -0.125, 1},
		Orientation:     mgl64.QuatIdent(),
		AngularVelocity: mgl64.Vec3{0, 0.5, 0},
	}
	s.Articulations[0] = deadreckon.Articulation{Angle: 8192 * AngleStep, Rate: 0.25}
	s.Articulations[1] = deadreckon.Articulation{Angle: -1024 * AngleStep, Rate: -1.5}
	s.NumArticulations = 2
	return s
}

// kinematicsA is stateA's packed kinematic block, built field by field.
func kinematicsA(t *testing.T) []byte {
	return packBits(t,
		field{24, 1500}, field{22, -2250}, field{24, 100001}, // mm
		field{2, 3}, field{10, 511}, field{10, 511}, field{10, 511}, // identity: w largest, x = y = z = 0
		field{12, 224}, field{12, 0}, field{12, -80}, // 1/64 m/s
		field{9, 2}, field{9, -1}, field{9, 8}, // 1/8 m/s²
		field{9, 0}, field{9, 32}, field{9, 0}, // 1/64 rad/s
	)
}

// stateB turns half a revolution about +Y and moves diagonally.
func stateB() deadreckon.State {
	return deadreckon.State{
		Time:         0.001,
		Position:     mgl64.Vec3{-8388.607, 2097.151, 8388.607},
		Velocity:     mgl64.Vec3{-32, 1.0 / 64, 31.984375},
		Orientation:  mgl64.Quat{W: 0, V: mgl64.Vec3{0, 1, 0}},
		Acceleration: mgl64.Vec3{-32, 0, 31.875},
	}
}

func kinematicsB(t *testing.T) []byte {
	return packBits(t,
		field{24, -8388607}, field{22, 2097151}, field{24, 8388607},
		field{2, 1}, field{10, 511}, field{10, 511}, field{10, 511}, // y largest; x, z, w zero
		field{12, -2048}, field{12, 1}, field{12, 2047},
		field{9, -256}, field{9, 0}, field{9, 255},
		field{9, 0}, field{9, 0}, field{9, 0},
	)
}

func partialOf(s deadreckon.State) deadreckon.State {
	s.Articulations = [deadreckon.MaxArticulations]deadreckon.Articulation{}
	s.NumArticulations = 0
	return s
}

func seq(from byte, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = from + byte(i)
	}
	return b
}

type knownCase struct {
	name string
	msg  Message
	want []byte
}

func knownMessages(t *testing.T) []knownCase {
	var salt [SaltSize]byte
	var nonce [NonceSize]byte
	var proof [ProofSize]byte
	copy(salt[:], seq(0x00, SaltSize))
	copy(nonce[:], seq(0x20, NonceSize))
	copy(proof[:], seq(0xa0, ProofSize))
	var token [TokenSize]byte
	copy(token[:], seq(0x40, TokenSize))
	arts := unhex(t, "02 2000 0100 fc00 fa00")
	return append([]knownCase{
		{"challenge", &Challenge{PassphraseRequired: true, Salt: salt, Nonce: nonce},
			cat(unhex(t, "05 01 01"), seq(0x00, SaltSize), seq(0x20, NonceSize))},
		{"join request", &JoinRequest{Name: "Ada", Proof: proof, Token: token},
			cat(unhex(t, "05 02 03 416461"), seq(0xa0, ProofSize), seq(0x40, TokenSize))},
		{"observe request", &JoinRequest{Name: "Ada", Proof: proof, Token: token, Observe: true},
			cat(unhex(t, "05 11 03 416461"), seq(0xa0, ProofSize), seq(0x40, TokenSize))},
		{"view", &View{Follow: 42, Position: mgl64.Vec3{1.5, 2, -3}}, unhex(t, "05 21 002a 000005dc 000007d0 fffff448")},
		{"observers", &Observers{Count: 3}, unhex(t, "05 12 0003")},
		{"zones on", &Zones{On: true}, unhex(t, "05 14 01")},
		{"zones off", &Zones{}, unhex(t, "05 14 00")},
		{"join accepted", &JoinAccepted{Player: 7, Token: token, TickRate: 60, Heartbeat: 2.5, MapExtent: 256, MapSeed: 0x0102030405060708, MapName: "steppe"},
			cat(unhex(t, "05 03 0007"), seq(0x40, TokenSize), unhex(t, "003c 000009c4 0003e800 0102030405060708 06 737465707065"))},
		{"join refused", &JoinRefused{Reason: RefusePassphrase, Text: "no"}, unhex(t, "05 04 01 02 6e6f")},
		{"spawn", &Spawn{Actor: 42, Owner: 7, Team: 1, Name: "Ada", Seq: 9, State: stateA()},
			cat(unhex(t, "05 05 0007 01 03 416461 002a 0009 00003039"), kinematicsA(t), arts)},
		{"despawn", &Despawn{Actor: 42, Reason: DespawnDestroyed}, unhex(t, "05 06 002a 02")},
		{"leave", &Leave{Player: 7, Reason: LeaveTimeout}, unhex(t, "05 07 0007 02")},
		{"kick", &Kick{Reason: "spam"}, unhex(t, "05 08 04 7370616d")},
		{"chat", &Chat{From: 7, Text: "gg"}, unhex(t, "05 09 0007 02 6767")},
		{"clock request", &ClockRequest{ClientSend: 1.5}, unhex(t, "05 0a 000000000016e360")},
		{"clock answer", &ClockAnswer{ClientSend: 1.5, HostReceive: 100.25, HostSend: 100.2505},
			unhex(t, "05 0b 000000000016e360 0000000005f9b190 0000000005f9b384")},
		{"state batch", &StateBatch{Updates: []Update{
			{Actor: 42, Seq: 9, State: partialOf(stateA())},
			{Actor: 43, Seq: 65535, State: stateB()},
			{Actor: 44, Seq: 0, State: stateA()},
		}}, cat(
			unhex(t, "05 20 002a 0009 00003039"), kinematicsA(t), unhex(t, "00"),
			unhex(t, "002b ffff 00000001"), kinematicsB(t), unhex(t, "00"),
			unhex(t, "002c 0000 00003039"), kinematicsA(t), arts,
		)},
	}, append(combatMessages(t), routeMessages(t)...)...)
}

// sameMessage compares messages, states within 1e-9.
func sameMessage(got, want Message) error {
	switch w := want.(type) {
	case *Spawn:
		g, ok := got.(*Spawn)
		if !ok {
			return errors.New("not a spawn")
		}
		gs, ws := *g, *w
		gs.State, ws.State = deadreckon.State{}, deadreckon.State{}
		if gs != ws {
			return errors.New("fields differ")
		}
		return sameState(g.State, w.State, 1e-9)
	case *StateBatch:
		g, ok := got.(*StateBatch)
		if !ok || len(g.Updates) != len(w.Updates) {
			return errors.New("not the same batch")
		}
		for i := range w.Updates {
			gu, wu := g.Updates[i], w.Updates[i]
			if gu.Actor != wu.Actor || gu.Seq != wu.Seq {
				return errors.New("update headers differ")
			}
			if err := sameState(gu.State, wu.State, 1e-9); err != nil {
				return err
			}
		}
		return nil
	}
	if !reflect.DeepEqual(got, want) {
		return errors.New("fields differ")
	}
	return nil
}

func TestKnownBytes(t *testing.T) {
	for _, tc := range knownMessages(t) {
		t.Run(tc.name, func(t *testing.T) {
			prefix := []byte{0xee}
			b, err := tc.msg.Append(prefix)
			if err != nil {
				t.Fatalf("Append: %v", err)
			}
			if !bytes.Equal(b[1:], tc.want) {
				t.Fatalf("Append = % x\nwant     % x", b[1:], tc.want)
			}
			if got := tc.msg.Length(); got != len(tc.want) {
				t.Errorf("Length = %d, want %d", got, len(tc.want))
			}
			m, n, err := Parse(tc.want)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if n != len(tc.want) {
				t.Errorf("Parse used %d bytes, want %d", n, len(tc.want))
			}
			if m.Type() != tc.msg.Type() {
				t.Errorf("Type = %v, want %v", m.Type(), tc.msg.Type())
			}
			if err := sameMessage(m, tc.msg); err != nil {
				t.Errorf("Parse = %+v, want %+v: %v", m, tc.msg, err)
			}
		})
	}
}

// TestPrefixes checks that every strict prefix of a message fails with io.EOF, except
// that a state batch may end after any whole update.
func TestPrefixes(t *testing.T) {
	for _, tc := range knownMessages(t) {
		t.Run(tc.name, func(t *testing.T) {
			for i := 0; i < len(tc.want); i++ {
				prefix := bytes.Clone(tc.want[:i])
				m, _, err := Parse(prefix)
				if err == nil {
					b, ok := m.(*StateBatch)
					if !ok || len(b.Updates) >= len(tc.msg.(*StateBatch).Updates) {
						t.Fatalf("prefix of %d bytes parsed as %+v", i, m)
					}
					continue
				}
				if !errors.Is(err, io.EOF) {
					t.Fatalf("prefix of %d bytes: %v, want io.EOF", i, err)
				}
			}
		})
	}
}

// TestParseCopies checks that parsed messages do not alias the input.
func TestParseCopies(t *testing.T) {
	for _, tc := range knownMessages(t) {
		b := bytes.Clone(tc.want)
		m, _, err := Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for i := range b {
			b[i] = 0xff
		}
		if err := sameMessage(m, tc.msg); err != nil {
			t.Errorf("%s changed with its input buffer: %v", tc.name, err)
		}
	}
}

func TestTrailingBytesLeftAlone(t *testing.T) {
	for _, tc := range knownMessages(t) {
		if tc.msg.Type() == MsgStateBatch {
			continue // a batch extends to the end of its datagram
		}
		_, n, err := Parse(cat(tc.want, []byte{1, 2, 3}))
		if err != nil || n != len(tc.want) {
			t.Errorf("%s with trailing bytes: n = %d, err = %v; want %d, nil", tc.name, n, err, len(tc.want))
		}
	}
}

func TestParseRejects(t *testing.T) {
	known := map[string][]byte{}
	for _, tc := range knownMessages(t) {
		known[tc.name] = tc.want
	}
	with := func(name string, at int, v ...byte) []byte {
		b := bytes.Clone(known[name])
		copy(b[at:], v)
		return b
	}
	badQuat := cat(unhex(t, "05 20 002a 0009 00003039"), packBits(t,
		field{24, 0}, field{22, 0}, field{24, 0},
		field{2, 3}, field{10, 1022}, field{10, 1022}, field{10, 511}, // x² + y² = 1, w would be 0 < x
		field{36, 0}, field{27, 0}, field{27, 0}), []byte{0})
	minPosition := cat(unhex(t, "05 20 002a 0009 00003039"), packBits(t,
		field{24, -1 << 23}, field{22, 0}, field{24, 0},
		field{2, 3}, field{10, 511}, field{10, 511}, field{10, 511},
		field{36, 0}, field{27, 0}, field{27, 0}), []byte{0})
	quatCode := bytes.Clone(minPosition)
	copy(quatCode[10:], packBits(t, field{24, 0}, field{22, 0}, field{24, 0}, field{2, 3}, field{10, 1023}, field{6, 0}))
	cases := []struct {
		name string
		b    []byte
		want error
	}{
		{"empty", nil, io.EOF},
		{"version 0", with("kick", 0, 0), ErrVersion},
		{"version 6", with("chat", 0, 6), ErrVersion},
		{"version 4", with("chat", 0, 4), ErrVersion},
		{"type 0", with("chat", 1, 0), ErrUnknownType},
		{"type 0xff", with("chat", 1, 0xff), ErrUnknownType},
		{"challenge flags", with("challenge", 2, 0x03), ErrInvalid},
		{"name too long", cat(unhex(t, "05 02 21"), make([]byte, 33+ProofSize)), ErrTooLong},
		{"empty name", cat(unhex(t, "05 02 00"), make([]byte, ProofSize+TokenSize)), ErrInvalid},
		{"name bad UTF-8", with("join request", 3, 0xff), ErrInvalid},
		{"name control char", with("join request", 3, '\n'), ErrInvalid},
		{"player 0", with("join accepted", 2, 0, 0), ErrInvalid},
		{"zero reconnect token", with("join accepted", 4, make([]byte, TokenSize)...), ErrInvalid},
		{"tick rate 0", with("join accepted", 4+TokenSize, 0, 0), ErrOutOfRange},
		{"heartbeat 0", with("join accepted", 6+TokenSize, 0, 0, 0, 0), ErrOutOfRange},
		{"map too large", with("join accepted", 10+TokenSize, 0xff, 0xff, 0xff, 0xff), ErrOutOfRange},
		{"refuse reason 0", with("join refused", 2, 0), ErrInvalid},
		{"refuse reason 99", with("join refused", 2, 99), ErrInvalid},
		{"spawn actor 0", with("spawn", 9, 0, 0), ErrInvalid},
		{"spawn 5 articulations", with("spawn", 9+8+24, 5), ErrOutOfRange},
		{"despawn reason 9", with("despawn", 4, 9), ErrInvalid},
		{"despawn actor 0", with("despawn", 2, 0, 0), ErrInvalid},
		{"leave reason 0", with("leave", 4, 0), ErrInvalid},
		{"kick text too long", cat(unhex(t, "05 08 c9"), make([]byte, 201)), ErrTooLong},
		{"empty chat", unhex(t, "05 09 0007 00"), ErrInvalid},
		{"clock beyond 2^43 µs", with("clock request", 2, 0, 0, 0x08), ErrOutOfRange},
		{"clock answer sent before received", with("clock answer", 18, 0, 0, 0, 0, 0, 0, 0, 0), ErrInvalid},
		{"empty batch", unhex(t, "05 20"), io.EOF},
		{"batch record cut short", known["state batch"][:2+MinUpdateSize-1], io.EOF},
		{"batch 5 articulations", with("state batch", 2+MinUpdateSize-1, 5), ErrOutOfRange},
		{"batch articulations past end", known["state batch"][:len(known["state batch"])-1], io.EOF},
		{"batch too long", cat(unhex(t, "05 20"), make([]byte, 37*MinUpdateSize)), ErrTooLong},
		{"impossible orientation", badQuat, ErrInvalid},
		{"orientation code 1023", quatCode, ErrInvalid},
		{"most negative x", minPosition, ErrOutOfRange},
	}
	for _, tc := range cases {
		m, n, err := Parse(tc.b)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: Parse = %+v, %d, %v; want error %v", tc.name, m, n, err, tc.want)
		}
		if err != nil && (m != nil || n != 0) {
			t.Errorf("%s: failed Parse returned %v, %d", tc.name, m, n)
		}
	}
}

func TestAppendRejects(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	st := func(f func(*deadreckon.State)) deadreckon.State {
		s := stateA()
		f(&s)
		return s
	}
	batch := func(s deadreckon.State) Message {
		return &StateBatch{Updates: []Update{{Actor: 1, State: s}}}
	}
	cases := []struct {
		name string
		msg  Message
		want error
	}{
		{"NaN position", batch(st(func(s *deadreckon.State) { s.Position[1] = nan })), ErrNotFinite},
		{"Inf velocity", batch(st(func(s *deadreckon.State) { s.Velocity[0] = inf })), ErrNotFinite},
		{"NaN acceleration", batch(st(func(s *deadreckon.State) { s.Acceleration[2] = nan })), ErrNotFinite},
		{"Inf angular velocity", batch(st(func(s *deadreckon.State) { s.AngularVelocity[1] = -inf })), ErrNotFinite},
		{"NaN orientation", batch(st(func(s *deadreckon.State) { s.Orientation.W = nan })), ErrNotFinite},
		{"NaN time", batch(st(func(s *deadreckon.State) { s.Time = nan })), ErrNotFinite},
		{"negative time", batch(st(func(s *deadreckon.State) { s.Time = -1 })), ErrOutOfRange},
		{"NaN articulation", batch(st(func(s *deadreckon.State) { s.Articulations[1].Rate = nan })), ErrNotFinite},
		{"5 articulations", batch(st(func(s *deadreckon.State) { s.NumArticulations = 5 })), ErrOutOfRange},
		{"x past map", batch(st(func(s *deadreckon.State) { s.Position[0] = 8388.608 })), ErrOutOfRange},
		{"y past map", batch(st(func(s *deadreckon.State) { s.Position[1] = -2100 })), ErrOutOfRange},
		{"empty batch", &StateBatch{}, ErrInvalid},
		{"spawn NaN", &Spawn{Actor: 1, Name: "a", State: st(func(s *deadreckon.State) { s.Position[2] = nan })}, ErrNotFinite},
		{"spawn actor 0", &Spawn{Name: "a", State: stateA()}, ErrInvalid},
		{"spawn no name", &Spawn{Actor: 1, State: stateA()}, ErrInvalid},
		{"long name", &JoinRequest{Name: string(make([]byte, 33))}, ErrTooLong},
		{"control char", &Chat{Text: "a\x1b[2J"}, ErrInvalid},
		{"bad UTF-8", &Kick{Reason: "\xff"}, ErrInvalid},
		{"empty chat", &Chat{}, ErrInvalid},
		{"heartbeat NaN", &JoinAccepted{Player: 1, Token: [TokenSize]byte{1}, TickRate: 60, Heartbeat: nan, MapExtent: 1}, ErrNotFinite},
		{"extent too large", &JoinAccepted{Player: 1, Token: [TokenSize]byte{1}, TickRate: 60, Heartbeat: 1, MapExtent: 9000}, ErrOutOfRange},
		{"zero reconnect token", &JoinAccepted{Player: 1, TickRate: 60, Heartbeat: 1, MapExtent: 1}, ErrInvalid},
		{"clock NaN", &ClockRequest{ClientSend: nan}, ErrNotFinite},
		{"clock huge", &ClockAnswer{HostSend: 1e300}, ErrOutOfRange},
		{"clock backwards", &ClockAnswer{HostReceive: 2, HostSend: 1}, ErrInvalid},
		{"refuse reason 0", &JoinRefused{}, ErrInvalid},
		{"despawn reason 0", &Despawn{Actor: 1}, ErrInvalid},
		{"leave reason 0", &Leave{}, ErrInvalid},
		{"batch too long", &StateBatch{Updates: slices.Repeat([]Update{{Actor: 1, State: stateA()}}, 38)}, ErrTooLong},
	}
	for _, tc := range cases {
		prefix := []byte{1, 2, 3}
		b, err := tc.msg.Append(prefix)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: Append error %v, want %v", tc.name, err, tc.want)
		}
		if !bytes.Equal(b, prefix) {
			t.Errorf("%s: failed Append changed the buffer to % x", tc.name, b)
		}
	}
}

func TestZeroOrientationIsIdentity(t *testing.T) {
	s := stateA()
	s.Orientation = mgl64.Quat{}
	m := &StateBatch{Updates: []Update{{Actor: 1, State: s}}}
	b, err := m.Append(nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if q := got.(*StateBatch).Updates[0].State.Orientation; q != mgl64.QuatIdent() {
		t.Errorf("zero orientation decodes to %v, want the identity", q)
	}
}

func TestPeekHeader(t *testing.T) {
	v, typ, err := PeekHeader([]byte{7, byte(MsgJoinRefused), 1})
	if err != nil || v != 7 || typ != MsgJoinRefused {
		t.Errorf("PeekHeader = %d, %v, %v; want 7, join-refused, nil", v, typ, err)
	}
	if _, _, err := PeekHeader([]byte{1}); !errors.Is(err, io.EOF) {
		t.Errorf("PeekHeader of 1 byte: %v, want io.EOF", err)
	}
}

func TestStrings(t *testing.T) {
	cases := []struct {
		s    fmtStringer
		want string
	}{
		{MsgSpawn, "spawn"}, {MsgType(0x77), "MsgType(0x77)"},
		{RefuseFull, "match full"}, {RefuseReason(0), "RefuseReason(0)"},
		{DespawnOwnerGone, "owner gone"}, {LeaveKicked, "kicked"},
	}
	for _, tc := range cases {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

type fmtStringer interface{ String() string }

func TestPositionEdgeRounding(t *testing.T) {
	// −8388.6075 m rounds away from zero to the unused code −2²³: the encoder must refuse
	// it rather than send what every decoder rejects.
	for _, x := range []float64{-8388.6075, 8388.6075, -8388.60751} {
		m := &StateBatch{Updates: []Update{{Actor: 1, State: deadreckon.NewState(mgl64.Vec3{x, 0, 0})}}}
		b, err := m.Append(nil)
		if err == nil {
			if _, _, err := Parse(b); err != nil {
				t.Errorf("x = %v encodes to bytes that do not parse: %v", x, err)
			}
		} else if !errors.Is(err, ErrOutOfRange) {
			t.Errorf("x = %v: %v, want nil or ErrOutOfRange", x, err)
		}
	}
}

// TestDocumentedSizes pins the sizes PROTOCOL.md states.
func TestDocumentedSizes(t *testing.T) {
	name := "abcde"
	cases := []struct {
		what      string
		got, want int
	}{
		{"update, 0 joints", UpdateSize(0), 33},
		{"update, 2 joints", UpdateSize(2), 41},
		{"update, 4 joints", MaxUpdateSize, 49},
		{"challenge", (&Challenge{}).Length(), 51},
		{"join request", (&JoinRequest{Name: name}).Length(), 51 + len(name)},
		{"join accepted", (&JoinAccepted{MapName: name}).Length(), 39 + len(name)},
		{"join refused", (&JoinRefused{Text: name}).Length(), 4 + len(name)},
		{"spawn, 3 joints", (&Spawn{Name: name, State: deadreckon.State{NumArticulations: 3}}).Length(), 39 + len(name) + 12},
		{"despawn", (&Despawn{}).Length(), 5},
		{"leave", (&Leave{}).Length(), 5},
		{"kick", (&Kick{Reason: name}).Length(), 3 + len(name)},
		{"chat", (&Chat{Text: name}).Length(), 5 + len(name)},
		{"clock request", (&ClockRequest{}).Length(), 10},
		{"clock answer", (&ClockAnswer{}).Length(), 26},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("%s: %d bytes, want %d", tc.what, tc.got, tc.want)
		}
	}
}
