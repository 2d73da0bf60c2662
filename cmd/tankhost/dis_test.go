package main

import (
	"context"
	"fmt"
	"io"
	"math"
	stdnet "net"
	stdhttp "net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/disgate"
	"github.com/treadline/treadline/disgate/distest"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/dis"
	"github.com/treadline/treadline/net/wire"
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
// match, named by its marking, on team DIS, and the gateway's metrics count both
// ways. The gateway's in-process member is no player: the round waits for one, and
// treadline_players counts the one who joins.
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
	for _, want := range []string{"treadline_players 0\n", `treadline_match_state{state="waiting"} 1` + "\n"} {
		if body := scrape(t, maddr); !strings.Contains(body, want) {
			t.Errorf("with no player joined, /metrics lacks %q: the DIS gateway counts as a player", want)
		}
	}
	if strings.Contains(logs.String(), "round started") {
		t.Error("the round started with no player joined")
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
	if seen.Team != wire.TeamDIS {
		t.Errorf("the circler is on team %d, want team DIS (%d)", seen.Team, wire.TeamDIS)
	}

	body := scrape(t, maddr)
	for _, want := range []string{"treadline_dis_entities 1", "treadline_dis_pdus_sent_total", "treadline_dis_pdus_received_total",
		`treadline_dis_dropped_total{reason="own"}`, "treadline_players 1\n"} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	cancel()
	select {
	case <-errc:
	case <-time.After(10 * time.Second):
		t.Fatal("host did not stop")
	}
}

// scrape returns the host's /metrics page at addr.
func scrape(t *testing.T, addr string) string {
	t.Helper()
	resp, err := stdhttp.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

// openDISCircler is a node script that sends, with Open-DIS, an entity "circler"
// (site 42, application 43, force 2) circling 20 m round the world origin at the
// default origin, ten PDUs a second for the seconds given, to 127.0.0.1 at the port
// given. It places the entity itself, on the plane tangent at the origin.
const openDISCircler = `
globalThis.dis = {};
const D = require("open-dis");
const dgram = require("dgram");
const [port, seconds] = process.argv.slice(-2).map(Number);
const lat = %g * Math.PI / 180, lon = %g * Math.PI / 180;
const a = 6378137, f = 1 / 298.257223563, e2 = f * (2 - f);
const N = a / Math.sqrt(1 - e2 * Math.sin(lat) ** 2);
const o = [N * Math.cos(lat) * Math.cos(lon), N * Math.cos(lat) * Math.sin(lon), N * (1 - e2) * Math.sin(lat)];
const E = [-Math.sin(lon), Math.cos(lon), 0];
const Nn = [-Math.sin(lat) * Math.cos(lon), -Math.sin(lat) * Math.sin(lon), Math.cos(lat)];
const sock = dgram.createSocket("udp4");
let k = 0;
const send = () => {
  const t = k * 0.1, w = 0.25, r = 20;
  const e = r * Math.cos(w * t), n = r * Math.sin(w * t);
  const ve = -r * w * Math.sin(w * t), vn = r * w * Math.cos(w * t);
  const p = new D.EntityStatePdu();
  p.protocolVersion = 6; p.exerciseID = 1; p.pduLength = 144;
  p.entityID.site = 42; p.entityID.application = 43; p.entityID.entity = 1;
  p.forceId = 2;
  p.entityType.entityKind = 1; p.entityType.domain = 1; p.entityType.category = 1;
  for (const [i, c] of ["x", "y", "z"].entries()) {
    p.entityLocation[c] = o[i] + e * E[i] + n * Nn[i];
    p.entityLinearVelocity[c] = ve * E[i] + vn * Nn[i];
  }
  p.deadReckoningParameters.deadReckoningAlgorithm = 2;
  p.marking.characterSet = 1;
  p.marking.characters = [..."circler"].map(c => c.charCodeAt(0)).concat(Array(4).fill(0));
  const out = new D.OutputStream(new ArrayBuffer(1500));
  p.encodeToBinary(out);
  sock.send(Buffer.from(out.toByteArray()), port, "127.0.0.1");
  if (++k >= seconds * 10) setTimeout(() => sock.close(), 100); else setTimeout(send, 100);
};
send();
`

// TestOpenDISCirclerInMatch: an entity Open-DIS sends to tankhost -dis circles in
// the match a player joins, named by its marking, on its circle.
func TestOpenDISCirclerInMatch(t *testing.T) {
	node, dir := distest.OpenDIS(t)
	port := freeDISPort(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs, r, errc := startRun(t, ctx, "-listen", "127.0.0.1:0", "-bots", "0", "-map", testMap(t), "-dis", fmt.Sprintf("127.0.0.1:%d", port))
	o := dis.DefaultOrigin
	cmd := exec.CommandContext(ctx, node, "-e", fmt.Sprintf(openDISCircler, o.Lat, o.Lon), fmt.Sprint(port), "15")
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(dir, "node_modules"))
	var nodeOut syncBuffer
	cmd.Stdout, cmd.Stderr = &nodeOut, &nodeOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Wait() }()

	client, err := net.Dial(ctx, net.ClientConfig{Addr: r.addr, Fingerprint: r.fp, KnownHosts: "-", Name: "watcher"})
	if err != nil {
		t.Fatalf("join: %v", err)
	}
	defer client.Close()
	var actor uint32
	states := 0
	var evs []net.Event
	for deadline := time.Now().Add(12 * time.Second); time.Now().Before(deadline) && states < 5; {
		time.Sleep(100 * time.Millisecond)
		for _, ev := range client.Poll(evs[:0]) {
			switch {
			case ev.Kind == net.EventSpawn && ev.Name == "circler"+disgate.EntityTag:
				actor = ev.Actor
			case ev.Kind == net.EventState && actor != 0 && ev.Actor == actor:
				states++
				p := ev.State.Position
				if d := math.Hypot(p[0], p[2]); math.Abs(d-20) > 2 {
					t.Errorf("the circler is %.2f m from the origin, want 20", d)
				}
			}
		}
	}
	if actor == 0 || states < 5 {
		t.Fatalf("Open-DIS's circler in the match: spawned %v, %d states\nnode: %s\n%s", actor != 0, states, tail(nodeOut.String()), logs.String())
	}
	cancel()
	<-errc
}

// tail returns the end of s: a minified library's stack trace quotes all of it.
func tail(s string) string {
	if len(s) > 1500 {
		return s[len(s)-1500:]
	}
	return s
}
