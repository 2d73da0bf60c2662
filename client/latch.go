package client

import (
	"github.com/g3n/engine/core"
	"github.com/g3n/engine/window"
)

// keyLatch remembers the keys pressed since the last frame read them. At low frame
// rates a tap can go down and come up between two frames; the key state then shows
// it up at both, and the tap would be lost. A latched key counts as held for the one
// frame that follows its press.
type keyLatch struct {
	down map[window.Key]bool
}

// newKeyLatch returns a latch fed by d's key-down events, subscribed with the
// latch as its id.
func newKeyLatch(d core.IDispatcher) *keyLatch {
	l := &keyLatch{down: make(map[window.Key]bool)}
	d.SubscribeID(window.OnKeyDown, l, func(_ string, ev interface{}) {
		if e, ok := ev.(*window.KeyEvent); ok {
			l.down[e.Key] = true
		}
	})
	return l
}

// pressed reports whether k went down since the last clear. A nil latch has none.
func (l *keyLatch) pressed(k window.Key) bool { return l != nil && l.down[k] }

// clear forgets the presses, once a frame has read them.
func (l *keyLatch) clear() {
	if l != nil {
		clear(l.down)
	}
}
