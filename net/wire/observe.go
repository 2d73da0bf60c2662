package wire

import (
	"encoding/binary"
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
)

// Observers: a client that joins with an ObserveRequest (a JoinRequest with Observe
// set) gets no tank. It tells the host where its camera is with View datagrams, and
// the host tells every peer how many observers watch with Observers.

// viewSize and observersSize are the encoded sizes of View and Observers.
const (
	viewSize      = HeaderSize + 2 + 12
	observersSize = HeaderSize + 2
)

// View is an observer's camera, sent as a datagram a few times a second. Layout:
// header, follow u16 (the actor the camera follows, 0 for a free camera), position
// (world point, 3 × i32 mm within the map limits): 16 bytes. The host takes a followed
// tank's place from the tank's own accepted state, and moves its idea of a free
// camera toward Position no faster than an observer may fly: neither can widen what
// the observer is sent.
type View struct {
	// Follow is the actor the camera follows, 0 for a free camera.
	Follow ActorID
	// Position is where the camera looks from, meters, world frame.
	Position mgl64.Vec3
}

// Type returns MsgView.
func (m *View) Type() MsgType { return MsgView }

// Length returns the encoded size, 16 bytes.
func (m *View) Length() int { return viewSize }

// Append appends the encoded message.
func (m *View) Append(b []byte) ([]byte, error) {
	out := binary.BigEndian.AppendUint16(appendHeader(b, MsgView), uint16(m.Follow))
	out, err := appendWorld(out, m.Position)
	if err != nil {
		return b, fmt.Errorf("wire: view: %w", err)
	}
	return out, nil
}

func parseView(b []byte) (*View, int, error) {
	if err := checkHeader(b, MsgView); err != nil {
		return nil, 0, err
	}
	r := reader{b: b, off: HeaderSize, ctx: "view"}
	m := &View{Follow: ActorID(r.u16())}
	m.Position = r.world()
	if r.err != nil {
		return nil, 0, r.err
	}
	return m, r.off, nil
}

// Observers is the host's count of the observers watching the match, sent to every
// peer when it changes and to each peer as it joins. Layout: header, count u16: 4
// bytes.
type Observers struct {
	// Count is how many observers watch the match now.
	Count uint16
}

// Type returns MsgObservers.
func (m *Observers) Type() MsgType { return MsgObservers }

// Length returns the encoded size, 4 bytes.
func (m *Observers) Length() int { return observersSize }

// Append appends the encoded message.
func (m *Observers) Append(b []byte) ([]byte, error) {
	return binary.BigEndian.AppendUint16(appendHeader(b, MsgObservers), m.Count), nil
}

func parseObservers(b []byte) (*Observers, int, error) {
	if err := checkHeader(b, MsgObservers); err != nil {
		return nil, 0, err
	}
	r := reader{b: b, off: HeaderSize, ctx: "observers"}
	m := &Observers{Count: r.u16()}
	if r.err != nil {
		return nil, 0, r.err
	}
	return m, r.off, nil
}
