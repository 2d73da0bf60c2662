package wire_test

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net/wire"
)

// A sender packs updates of several tanks into datagrams; the receiver decodes them and
// drops late or duplicated ones.
func ExampleBatchWriter() {
	w := wire.NewBatchWriter(0)
	var datagrams [][]byte
	for i := 1; i <= 40; i++ {
		s := deadreckon.NewState(mgl64.Vec3{float64(i), 0, 10})
		s.Time = 3.5
		s.Velocity = mgl64.Vec3{4, 0, 0}
		u := wire.Update{Actor: wire.ActorID(i), Seq: 7, State: s}
		err := w.Add(&u)
		if errors.Is(err, wire.ErrBatchFull) {
			datagrams = append(datagrams, bytes.Clone(w.Bytes()))
			w.Reset()
			err = w.Add(&u)
		}
		if err != nil {
			fmt.Println(err)
			return
		}
	}
	datagrams = append(datagrams, bytes.Clone(w.Bytes()))

	filters := map[wire.ActorID]*wire.SeqFilter{}
	var buf []wire.Update
	for _, d := range datagrams {
		buf, _, _ = wire.DecodeBatch(buf[:0], d)
		fresh := 0
		for _, u := range buf {
			f := filters[u.Actor]
			if f == nil {
				f = &wire.SeqFilter{}
				filters[u.Actor] = f
			}
			if f.Accept(u.Seq) {
				fresh++
			}
		}
		fmt.Printf("%d bytes, %d updates, %d fresh; last at x = %.3f m\n", len(d), len(buf), fresh, buf[len(buf)-1].State.Position[0])
	}
	// Output:
	// 1190 bytes, 36 updates, 36 fresh; last at x = 36.000 m
	// 134 bytes, 4 updates, 4 fresh; last at x = 40.000 m
}

// The join handshake: the host challenges, the client proves it knows the passphrase
// without sending it.
func ExampleProof() {
	salt := wire.NewSalt() // once per host run
	hostKey := wire.DeriveKey("tiger tracks", salt)
	challenge := wire.NewChallenge(salt, true) // once per connection

	// Client side, after reading the challenge.
	clientKey := wire.DeriveKey("tiger tracks", challenge.Salt)
	req := wire.JoinRequest{Name: "Ada", Proof: wire.Proof(clientKey, challenge.Nonce, "Ada")}
	frame, _ := wire.AppendFrame(nil, &req)

	// Host side.
	m, err := wire.NewFrameReader(bytes.NewReader(frame)).Next()
	if err != nil {
		fmt.Println(err)
		return
	}
	got := m.(*wire.JoinRequest)
	fmt.Println(got.Name, wire.VerifyProof(hostKey, challenge.Nonce, got.Name, got.Proof))
	fmt.Println("guess", wire.VerifyProof(hostKey, challenge.Nonce, got.Name, wire.Proof(wire.DeriveKey("panzer", salt), challenge.Nonce, "Ada")))
	// Output:
	// Ada true
	// guess false
}

func ExampleSeqNewer() {
	fmt.Println(wire.SeqNewer(3, 65534), wire.SeqNewer(65534, 3), wire.SeqDiff(3, 65534))
	// Output: true false 5
}

func ExampleParse() {
	b, _ := (&wire.Chat{From: 2, Text: "gg"}).Append(nil)
	m, n, err := wire.Parse(b)
	fmt.Printf("% x\n%v %d %v %+v\n", b, m.Type(), n, err, m)
	_, _, err = wire.Parse(b[:5])
	fmt.Println(err)
	// Output:
	// 05 09 00 02 02 67 67
	// chat 7 <nil> &{From:2 Text:gg}
	// wire: chat: 2-byte field at offset 5 runs past the end (0 left): EOF
}
