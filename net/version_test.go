package net

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/treadline/treadline/net/wire"
)

// TestRefusalNamesBothVersions: a client speaking another protocol version is refused
// with a message that names its version and the host's.
func TestRefusalNamesBothVersions(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := simHost(t, HostConfig{})
		conn, str, _, cleanup := rawDial(t, h)
		defer cleanup()
		str.Write([]byte{0, 4, wire.Version + 1, byte(wire.MsgJoinRequest), 1, 'x'})
		m, err := wire.NewFrameReader(str).Next()
		r, ok := m.(*wire.JoinRefused)
		if err != nil || !ok || r.Reason != wire.RefuseVersion {
			t.Fatalf("answer %+v, %v; want a version refusal", m, err)
		}
		want := fmt.Sprintf("the client speaks protocol version %d, this host version %d", wire.Version+1, wire.Version)
		if !strings.Contains(r.Text, want) {
			t.Errorf("refusal says %q, want it to say %q", r.Text, want)
		}
		<-conn.Context().Done()
	})
}
