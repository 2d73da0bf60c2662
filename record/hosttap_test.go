package record

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/memnet"
	"github.com/treadline/treadline/internal/poll"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
)

// rawPayload returns every block's records of the recording b, decompressed.
func rawPayload(t *testing.T, b []byte) []byte {
	t.Helper()
	r, err := NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for r.nextBlock() {
		out = append(out, r.raw...)
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	return out
}

// TestHostTapRecordsAMatch runs a host with a passphrase and a player over QUIC,
// records the host's view, and checks what the recording holds, and that it holds
// neither the passphrase nor the player's reconnect token. Host and player speak
// over an in-memory network (internal/memnet) in a synctest bubble: the waits for
// each relay are on the bubble's clock.
func TestHostTapRecordsAMatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lan := memnet.New()
		const pass = "correct horse battery staple"
		path := filepath.Join(t.TempDir(), "host.tread")
		w, err := Create(path, Meta{Perspective: Host, Map: "valley"}, Config{})
		if err != nil {
			t.Fatal(err)
		}
		tap := NewHostTap(NewSink(w), nil, nil)
		ctx := context.Background()
		host, err := net.Listen(ctx, net.HostConfig{Addr: "127.0.0.1:0", Passphrase: pass, Tap: tap, Wrap: lan.Wrap})
		if err != nil {
			t.Fatal(err)
		}
		defer host.Close()
		c, err := net.Dial(ctx, net.ClientConfig{Addr: host.Addr().String(), Fingerprint: host.Fingerprint(),
			KnownHosts: "-", Name: "ann", Passphrase: pass, Wrap: lan.Wrap})
		if err != nil {
			t.Fatal(err)
		}
		token := c.ReconnectToken()
		id, err := c.Spawn("ann", 1, deadreckon.NewState(mgl64.Vec3{1, 0, 2}))
		if err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			s := deadreckon.NewState(mgl64.Vec3{1 + float64(i)*0.2, 0, 2})
			s.Velocity = mgl64.Vec3{2, 0, 0}
			if err := c.Publish(id, s); err != nil {
				t.Fatal(err)
			}
			want := uint64(i + 1)
			poll.Until(t, 10*time.Second, "the update's relay", func() bool { return host.Stats().Accepted >= want })
		}
		if err := c.Chat("gg"); err != nil {
			t.Fatal(err)
		}
		poll.Until(t, 10*time.Second, "the chat", func() bool { return w.Stats().Records >= 8 })
		c.Close()
		poll.Until(t, 10*time.Second, "the leave", func() bool { return host.Stats().Players == 1 })
		host.Close()
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range [][]byte{[]byte(pass), token[:]} {
			if bytes.Contains(b, secret) || bytes.Contains(rawPayload(t, b), secret) {
				t.Errorf("the recording holds a secret: %q", secret)
			}
		}
		recs, err := readAll(t, b)
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		states := 0
		for _, r := range recs {
			switch r.Kind {
			case KindMessage:
				kinds = append(kinds, r.Message.Type().String())
			case KindJoin:
				kinds = append(kinds, "join:"+r.Name)
			case KindState:
				states++
				if r.Arrival != r.Time || r.Update.Actor != wire.ActorID(id) {
					t.Errorf("state of actor %d arrived %v, taken in %v", r.Update.Actor, r.Arrival, r.Time)
				}
			}
		}
		got := strings.Join(kinds, " ")
		for _, want := range []string{"join:ann", "spawn", "chat", "despawn", "leave"} {
			if !strings.Contains(got, want) {
				t.Errorf("records %q lack %s", got, want)
			}
		}
		if states != 5 {
			t.Errorf("%d states recorded, want the 5 accepted", states)
		}
	})
}
