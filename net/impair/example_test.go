package impair_test

import (
	"fmt"
	"log"
	"net"
	"time"

	"github.com/treadline/treadline/net/impair"
)

// Two loopback sockets, one impaired with 30 ms of latency and 50% loss: the seed makes
// the drops repeatable.
func Example() {
	a, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	b, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	c, err := impair.New(a, impair.Config{
		Outbound: impair.Link{Latency: 30 * time.Millisecond, Loss: 0.5},
		Seed:     7,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	start := time.Now()
	for i := 0; i < 20; i++ {
		c.WriteTo([]byte{byte(i)}, b.LocalAddr())
	}
	buf := make([]byte, 16)
	b.SetReadDeadline(time.Now().Add(time.Second))
	n, _, err := b.ReadFrom(buf)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("first packet delivered:", buf[:n], "after ≥ 30 ms:", time.Since(start) >= 30*time.Millisecond)
	fmt.Println("lost", c.Stats().Lost, "of 20")
	// Output:
	// first packet delivered: [1] after ≥ 30 ms: true
	// lost 10 of 20
}
