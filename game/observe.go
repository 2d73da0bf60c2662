package game

import (
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/net/wire"
)

// viewInterval is how often an observer tells the host where its camera is, s: the
// host flies its place toward the camera at a bounded speed, so a few reports a
// second keep it within a few tens of meters of a camera in flight.
const viewInterval = 0.25

// viewer is a link that can report an observer's camera (net.Client).
type viewer interface {
	View(follow uint32, p mgl64.Vec3) error
}

// Observing reports whether the match is an observer's (Config.Observe): no tank of
// its own, a camera that goes where the player wants.
func (m *Match) Observing() bool { return m.cfg.Observe }

// Observers returns the host's last count of the observers watching the match.
func (m *Match) Observers() int { return m.observers }

// SetFollow tells an observer's match which tank its camera follows, 0 for a free
// camera: the host takes that tank's place as the observer's.
func (m *Match) SetFollow(actor uint32) { m.follow = actor }

// sendView reports an observer's camera to the host every viewInterval.
func (m *Match) sendView(now float64) {
	if !m.cfg.Observe || !m.hasCamera || now < m.nextView {
		return
	}
	v, ok := m.link.(viewer)
	if !ok {
		return
	}
	m.nextView = now + viewInterval
	if err := v.View(m.follow, m.camera); err != nil {
		m.log.Debug("view not sent", "err", err)
	}
}

// observersMessage keeps the host's count of observers; it reports whether msg was
// one.
func (m *Match) observersMessage(msg wire.Message) bool {
	o, ok := msg.(*wire.Observers)
	if ok {
		m.observers = int(o.Count)
	}
	return ok
}
