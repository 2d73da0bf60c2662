package session

import (
	"context"
	"fmt"
	stdnet "net"
	"testing"
	"time"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/disgate"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/physics"
)

// TestHostDIS: a hosted match with a DIS gateway sends its tanks to a loopback
// multicast group, and another gateway there sees them; stepping the host's match
// with no player sends its bot.
func TestHostDIS(t *testing.T) {
	if testing.Short() {
		t.Skip("real-time network test; skipped with -short")
	}
	c, err := stdnet.ListenUDP("udp4", &stdnet.UDPAddr{IP: stdnet.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	port := c.LocalAddr().(*stdnet.UDPAddr).Port
	c.Close()
	group := fmt.Sprintf("239.255.85.%d:%d", 1+time.Now().Nanosecond()%200, port)
	peer, err := disgate.New(disgate.Config{Addr: group, Application: 7})
	if err != nil {
		t.Skipf("no loopback multicast here: %v", err)
	}
	defer peer.Close()
	go peer.Receive()
	gw, err := disgate.New(disgate.Config{Addr: group})
	if err != nil {
		t.Fatal(err)
	}
	m, sess, err := Host(context.Background(), HostConfig{Addr: "127.0.0.1:0", DIS: gw,
		Match: game.Config{Map: testmaps.Small(t), NoPlayer: true, Bots: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	start := time.Now()
	var ents []disgate.Entity
	for time.Since(start) < 15*time.Second {
		_ = m.Step(time.Since(start).Seconds(), physics.Input{})
		if ents = peer.Entities(ents[:0], time.Now()); len(ents) > 0 {
			break
		}
		time.Sleep(16 * time.Millisecond)
	}
	if len(ents) == 0 {
		t.Skipf("no PDU crossed loopback multicast %s in 15 s (sent %d)", group, gw.Stats().Sent)
	}
	if e := ents[0]; e.ID.Site != disgate.DefaultSite || e.Algorithm != deadreckon.DISRVW {
		t.Errorf("the bot went out as %+v", e)
	}
}
