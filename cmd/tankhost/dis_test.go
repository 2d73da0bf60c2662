package main

import (
	"context"
	"fmt"
	"io"
	"math"
	stdnet "net"
	stdhttp "net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/disgate"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/dis"
)

// freeDISPort returns a UDP port free on the loopback address now.
func freeDISPort(t *testing.T) int {
	t.Helper()
	_, port, err := stdnet.SplitHostPort(freeUDPPort(t))
	if err != nil {
		t.Fatal(err)
	}
	var n int
	fmt.Sscan(port, &n)
	return n
}

// circling returns a tank at time at on a 15 m circle round (cx, 0, cz) at 5 m/s.
func circling(cx, cz, at float64) deadreckon.State {
	const r, v = 15.0, 5.0
	w := v / r
	yaw := w * at
	s := deadreckon.NewState(mgl64.Vec3{cx + r*math.Sin(yaw), 0, cz + r*math.Cos(yaw)})
	s.Orientation = geom.YawQuat(yaw)
	s.Velocity = geom.Rotate(s.Orientation, mgl64.Vec3{v, 0, 0})
	s.AngularVelocity = mgl64.Vec3{0, w, 0}
	s.Acceleration = s.AngularVelocity.Cross(s.Velocity)
	return s
}

// TestDISGateway: tankhost -dis sends its bot as Entity State PDUs on a loopback
// multicast group, a circling entity another DIS program sends there appears in the
// match, named by its marking, and the gateway's metrics count both ways.
func TestDISGateway(t *testing.T) {
	group := fmt.Sprintf("239.255.84.%d:%d", 1+time.Now().Nanosecond()%200, freeDISPort(t))
	peer, err := disgate.New(disgate.Config{Addr: group, Application: 9})
	if err != nil {
		t.Skipf("no loopback multicast here: %v", err)
	}
	defer peer.Close()
	go peer.Receive()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &syncBuffer{}
	readyc := make(chan ready, 1)
	metricsc := make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, []string{"-listen", "127.0.0.1:0", "-bots", "1", "-map", testMap(t), "-dis", group,
			"-metrics", "127.0.0.1:0"}, logs, runOptions{
			ready:   func(addr, fp string) { readyc <- ready{addr, fp} },
			metrics: func(addr string) { metricsc <- addr },
		})
	}()
	var r ready
	select {
	case r = <-readyc:
	case err := <-errc:
		t.Fatalf("run: %v\n%s", err, logs.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("host not ready\n%s", logs.String())
	}
	maddr := <-metricsc

	// The bot goes out as an entity of site 1, application 1.
	deadline := time.Now().Add(20 * time.Second)
	var ents []disgate.Entity
	for time.Now().Before(deadline) {
		if ents = peer.Entities(ents[:0], time.Now()); len(ents) > 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(ents) == 0 {
		t.Skipf("no PDU from the host crossed loopback multicast %s in 20 s (the sandbox may filter multicast)\n%s", group, logs.String())
	}
	if e := ents[0]; e.ID.Site != disgate.DefaultSite || e.ID.Application != disgate.DefaultApplication || !strings.HasSuffix(e.Name, disgate.EntityTag) {
		t.Errorf("the bot went out as %+v", e)
	}

	// A circling entity from the peer appears in the match.
	client, err := net.Dial(ctx, net.ClientConfig{Addr: r.addr, Fingerprint: r.fp, KnownHosts: "-", Name: "watcher"})
	if err != nil {
		t.Fatalf("join: %v", err)
	}
	defer client.Close()
	start := time.Now()
	peer.Spawned(5, 0, "circler", 2, circling(0, 0, 0), 0)
	var seen *net.Event
	var states int
	var evs []net.Event
	for time.Now().Before(deadline) && (seen == nil || states < 5) {
		time.Sleep(100 * time.Millisecond)
		at := time.Since(start).Seconds()
		peer.Relayed(5, circling(0, 0, at), at)
		for _, ev := range client.Poll(evs[:0]) {
			switch {
			case ev.Kind == net.EventSpawn && ev.Name == "circler"+disgate.EntityTag:
				e := ev
				seen = &e
			case ev.Kind == net.EventState && seen != nil && ev.Actor == seen.Actor:
				states++
				p := ev.State.Position
				if d := math.Hypot(p[0], p[2]); math.Abs(d-15) > 2 {
					t.Errorf("the circler is %.2f m from the circle's centre, want 15", d)
				}
			}
		}
	}
	if seen == nil || states < 5 {
		t.Fatalf("the circling DIS entity: spawn %v, %d states\n%s", seen != nil, states, logs.String())
	}
	if seen.Team != 2 {
		t.Errorf("the circler is on team %d, want its force id 2", seen.Team)
	}

	resp, err := stdhttp.Get("http://" + maddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"treadline_dis_entities 1", "treadline_dis_pdus_sent_total", "treadline_dis_pdus_received_total", `treadline_dis_dropped_total{reason="own"}`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	_ = dis.Version7
	cancel()
	select {
	case <-errc:
	case <-time.After(10 * time.Second):
		t.Fatal("host did not stop")
	}
}
