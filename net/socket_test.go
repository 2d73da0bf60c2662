package net

import (
	"testing"
	"time"
)

// TestSharedSocket: three clients dial from one Socket, each its own player with its
// own connection; each one's updates reach the others through the host, closing one
// leaves the others playing and the socket open, and closing the socket ends the
// rest.
func TestSharedSocket(t *testing.T) {
	t.Parallel() // real time, over QUIC: runs beside the others
	h := testHost(t, HostConfig{})
	sock, err := OpenSocket("127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()
	names := []string{"ann", "bob", "cy"}
	cs := make([]*Client, len(names))
	tanks := make([]uint32, len(names))
	index := map[uint32]int{} // tank → its player's place in cs
	for i, name := range names {
		cs[i] = testClient(t, h, ClientConfig{Name: name, KnownHosts: "-", Socket: sock})
		if tanks[i], err = cs[i].Spawn(name, 1, tankAt(float64(10*i), 0)); err != nil {
			t.Fatal(err)
		}
		index[tanks[i]] = i
	}
	if cs[0].ID() == cs[1].ID() || cs[1].ID() == cs[2].ID() || cs[0].ID() == cs[2].ID() {
		t.Fatalf("players %d, %d, %d: want three", cs[0].ID(), cs[1].ID(), cs[2].ID())
	}
	// Each hears the others' updates, not its own.
	publish := func(i int, x float64) {
		t.Helper()
		if err := cs[i].Publish(tanks[i], tankAt(x, 0)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range cs {
		publish(i, float64(10*i)+0.5)
	}
	for i := range cs {
		heard := map[uint32]bool{}
		waitFor(t, cs[i], 3*time.Second, func(ev Event) bool {
			if j, ok := index[ev.Actor]; ok && ev.Kind == EventState && ev.State.Position[0] > float64(10*j)+0.4 {
				heard[ev.Actor] = true
			}
			return len(heard) == len(cs)-1
		})
		if heard[tanks[i]] {
			t.Errorf("player %d heard its own tank", i)
		}
	}
	// Closing one client leaves the socket to the others.
	if err := cs[0].Close(); err != nil {
		t.Fatal(err)
	}
	publish(1, 11)
	waitFor(t, cs[2], 3*time.Second, func(ev Event) bool {
		return ev.Kind == EventState && ev.Actor == tanks[1] && ev.State.Position[0] > 10.9
	})
	if sock.LocalAddr() == nil {
		t.Fatal("no local address")
	}
	// Closing the socket ends the clients still on it.
	if err := sock.Close(); err != nil {
		t.Fatal(err)
	}
	for _, c := range cs[1:] {
		waitFor(t, c, 10*time.Second, func(ev Event) bool { return ev.Kind == EventClosed })
	}
}
