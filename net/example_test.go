package net_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	tlnet "github.com/treadline/treadline/net"
)

// A host on loopback, one client joining with the host's fingerprint pinned, and the
// client's tank reaching the host's own player.
func Example() {
	ctx := context.Background()
	host, err := tlnet.Listen(ctx, tlnet.HostConfig{Addr: "127.0.0.1:0", Passphrase: "tiger",
		Match: tlnet.MatchSettings{Map: "valley"}})
	if err != nil {
		log.Fatal(err)
	}
	defer host.Close()
	local := host.Local()

	addr, fp, err := tlnet.SplitJoin(host.JoinAddress()) // as from -join host:port#fingerprint
	if err != nil {
		log.Fatal(err)
	}
	c, err := tlnet.Dial(ctx, tlnet.ClientConfig{Addr: addr, Fingerprint: fp, Name: "ann", Passphrase: "tiger"})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	fmt.Println("joined", c.Match().Map, "as player", c.ID())

	tank, err := c.Spawn("ann", 1, deadreckon.NewState(mgl64.Vec3{10, 0, -20}))
	if err != nil {
		log.Fatal(err)
	}
	s := deadreckon.NewState(mgl64.Vec3{10.5, 0, -20})
	s.Velocity = mgl64.Vec3{5, 0, 0}
	if err := c.Publish(tank, s); err != nil {
		log.Fatal(err)
	}
	var events []tlnet.Event
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		for _, ev := range local.Poll(events[:0]) {
			switch ev.Kind {
			case tlnet.EventSpawn:
				fmt.Printf("host sees %s spawn actor %d at x=%.1f\n", ev.Name, ev.Actor, ev.State.Position[0])
			case tlnet.EventState:
				fmt.Printf("host sees actor %d at x=%.1f moving %.1f m/s\n", ev.Actor, ev.State.Position[0], ev.State.Velocity[0])
				return
			}
		}
	}
	// Output:
	// joined valley as player 1
	// host sees ann spawn actor 1 at x=10.0
	// host sees actor 1 at x=10.5 moving 5.0 m/s
}

func ExampleSplitJoin() {
	addr, fp, err := tlnet.SplitJoin("192.0.2.7:7878#3A:7F:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD")
	fmt.Println(addr, fp, err)
	// Output:
	// 192.0.2.7:7878 3a7f00112233445566778899aabbccddeeff00112233445566778899aabbccdd <nil>
}

func ExampleFingerprint() {
	fmt.Println(tlnet.Fingerprint([]byte("not really a certificate")))
	// Output:
	// d6182255e5739d55fc9781759c7a823d4dff3d2b7d17949e7085ee7c0cc22acf
}
