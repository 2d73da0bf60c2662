package clock_test

import (
	"fmt"

	"github.com/treadline/treadline/net/clock"
)

func Example() {
	s := clock.New(clock.Config{})
	// The host's clock reads 40 s more than ours. Requests take 30 ms out and 30 ms
	// back, except the second, which waited 200 ms in a queue on the way back.
	for i, back := range []float64{0.03, 0.23, 0.03} {
		t0 := float64(i)
		hostTime := t0 + 0.03 + 40
		err := s.Add(clock.Sample{LocalSend: t0, RemoteReceive: hostTime, RemoteSend: hostTime, LocalReceive: t0 + 0.03 + back})
		if err != nil {
			fmt.Println(err)
		}
	}
	s.Advance(3)
	fmt.Printf("offset %.3f s, median round trip %.0f ms, min %.0f ms\n", s.Offset(), s.RTT()*1000, s.MinRTT()*1000)
	fmt.Printf("host time 45.5 s is local %.3f s\n", s.ToLocal(45.5))
	// Output:
	// offset 40.000 s, median round trip 60 ms, min 60 ms
	// host time 45.5 s is local 5.500 s
}
