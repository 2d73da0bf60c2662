//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	stdnet "net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/disgate/distest"
	"github.com/treadline/treadline/net/dis"
	"golang.org/x/net/ipv4"
)

// multicastSink joins group on every interface that takes it, on the group's port
// shared with the host (SO_REUSEADDR), or skips.
func multicastSink(t *testing.T, group *stdnet.UDPAddr) *stdnet.UDPConn {
	t.Helper()
	lc := stdnet.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1) })
		if err != nil {
			return err
		}
		return serr
	}}
	c, err := lc.ListenPacket(context.Background(), "udp4", fmt.Sprintf(":%d", group.Port))
	if err != nil {
		t.Skipf("no socket on the group's port: %v", err)
	}
	conn := c.(*stdnet.UDPConn)
	t.Cleanup(func() { conn.Close() })
	pc := ipv4.NewPacketConn(conn)
	ifs, _ := stdnet.Interfaces()
	joined := 0
	for i := range ifs {
		if ifs[i].Flags&stdnet.FlagUp != 0 && pc.JoinGroup(&ifs[i], &stdnet.UDPAddr{IP: group.IP}) == nil {
			joined++
		}
	}
	if joined == 0 {
		t.Skip("no interface joins a multicast group here")
	}
	return conn
}

// pdu is one Entity State PDU as a peer decoded it: entity number, timestamp
// (DIS units), ECEF location and velocity.
type pdu struct {
	Type, Site, App, Entity, Force int
	TS                             uint32
	Loc, Vel                       mgl64.Vec3
}

// openDISDecoder is a node script that decodes, with Open-DIS, every PDU of the
// JSON array of base64 datagrams on stdin, and prints them as a JSON array of pdu.
const openDISDecoder = `
globalThis.dis = {};
const D = require("open-dis");
const pdus = JSON.parse(require("fs").readFileSync(0, "utf8")).map(s => {
  const b = Buffer.from(s, "base64");
  const p = new D.PduFactory().createPdu(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
  if (p.pduType !== 1) return {Type: p.pduType};
  const l = p.entityLocation, v = p.entityLinearVelocity;
  return {Type: 1, Site: p.entityID.site, App: p.entityID.application, Entity: p.entityID.entity, Force: p.forceId,
    TS: p.timestamp, Loc: [l.x, l.y, l.z], Vel: [v.x, v.y, v.z]};
});
console.log(JSON.stringify(pdus));
`

// TestDISMatchCheckedByPeers: a tankhost -dis match of four bots on a loopback
// multicast group sends Entity State PDUs that Wireshark's dissector and Open-DIS
// both decode, alike, with sane fields (the gateway's site and application, the
// bots' forces, near the map's origin, under 30 m/s); and each moving tank's
// reported velocity agrees with its successive positions, in direction at any load
// and in speed to a few per cent (the host's frame timing shows in the speed).
func TestDISMatchCheckedByPeers(t *testing.T) {
	if testing.Short() {
		t.Skip("real-time multicast test; skipped with -short")
	}
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("tshark not installed: the match's PDUs not checked against Wireshark")
	}
	node, dir := distest.OpenDIS(t)
	port := freeDISPort(t)
	group := &stdnet.UDPAddr{IP: stdnet.IPv4(239, 255, 86, byte(1+time.Now().Nanosecond()%200)), Port: port}
	sink := multicastSink(t, group)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs, _, errc := startRun(t, ctx, "-listen", "127.0.0.1:0", "-bots", "4", "-map", testMap(t), "-dis", group.String())

	var dgrams [][]byte
	buf := make([]byte, 2048)
	var first time.Time
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		_ = sink.SetReadDeadline(time.Now().Add(time.Second))
		n, err := sink.Read(buf)
		if err != nil {
			continue
		}
		if first.IsZero() {
			first = time.Now()
		}
		dgrams = append(dgrams, append([]byte(nil), buf[:n]...))
		if time.Since(first) > 8*time.Second {
			break
		}
	}
	cancel()
	<-errc
	if len(dgrams) == 0 {
		t.Skipf("no PDU crossed loopback multicast %s (the sandbox may filter multicast)\n%s", group, logs.String())
	}

	// Wireshark.
	pcap := filepath.Join(t.TempDir(), "match.pcap")
	if err := os.WriteFile(pcap, distest.Pcap(port, dgrams), 0o644); err != nil {
		t.Fatal(err)
	}
	fields := []string{"dis.pdu_type", "dis.entity_id_site", "dis.entity_id_application", "dis.entity_id_entity", "dis.force_id",
		"dis.entity_location.x", "dis.entity_location.y", "dis.entity_location.z",
		"dis.entity_linear_velocity.x", "dis.entity_linear_velocity.y", "dis.entity_linear_velocity.z"}
	args := []string{"-r", pcap, "-d", fmt.Sprintf("udp.port==%d,dis", port), "-T", "fields", "-E", "separator=,"}
	for _, f := range fields {
		args = append(args, "-e", f)
	}
	out, err := exec.Command(tshark, args...).Output() // stderr: warnings, such as running as root
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(dgrams) {
		t.Fatalf("tshark read %d PDUs of %d", len(lines), len(dgrams))
	}
	var ws []pdu
	for i, l := range lines {
		f := strings.Split(l, ",")
		if len(f) != len(fields) {
			t.Fatalf("tshark's PDU %d: %q", i, l)
		}
		var v [11]float64
		for k := range f {
			v[k], _ = strconv.ParseFloat(f[k], 64)
		}
		ws = append(ws, pdu{Type: int(v[0]), Site: int(v[1]), App: int(v[2]), Entity: int(v[3]), Force: int(v[4]),
			Loc: mgl64.Vec3{v[5], v[6], v[7]}, Vel: mgl64.Vec3{v[8], v[9], v[10]}})
	}

	// Open-DIS.
	var in bytes.Buffer
	b64 := make([]string, len(dgrams))
	for i, d := range dgrams {
		b64[i] = base64.StdEncoding.EncodeToString(d)
	}
	_ = json.NewEncoder(&in).Encode(b64)
	cmd := exec.Command(node, "-e", openDISDecoder)
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(dir, "node_modules"))
	cmd.Stdin = &in
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, tail(string(out)))
	}
	var od []pdu
	if err := json.Unmarshal(out, &od); err != nil || len(od) != len(dgrams) {
		t.Fatalf("Open-DIS decoded %d PDUs of %d: %v", len(od), len(dgrams), err)
	}

	origin := dis.NewFrame(dis.DefaultOrigin).ToECEF(mgl64.Vec3{})
	entities := map[int][]pdu{}
	for i, w := range ws {
		o := od[i]
		if w.Type != 1 || o.Type != 1 {
			t.Errorf("PDU %d: type %d (Wireshark), %d (Open-DIS), want Entity State (1)", i, w.Type, o.Type)
			continue
		}
		if w.Site != 1 || w.App != 1 || (w.Force != 1 && w.Force != 2) || w.Entity == 0 {
			t.Errorf("PDU %d: entity %d:%d:%d, force %d, want 1:1:N and force 1 or 2", i, w.Site, w.App, w.Entity, w.Force)
		}
		if o.Site != w.Site || o.App != w.App || o.Entity != w.Entity || o.Force != w.Force ||
			o.Loc.Sub(w.Loc).Len() > 1e-3 || o.Vel.Sub(w.Vel).Len() > 1e-3 {
			t.Errorf("PDU %d: Open-DIS read %+v, Wireshark %+v", i, o, w)
		}
		if d := w.Loc.Sub(origin).Len(); d > 5000 {
			t.Errorf("PDU %d: entity %d is %.0f m from the map's origin", i, w.Entity, d)
		}
		if v := w.Vel.Len(); v > 30 {
			t.Errorf("PDU %d: entity %d at %.1f m/s", i, w.Entity, v)
		}
		entities[o.Entity] = append(entities[o.Entity], o)
	}
	if len(entities) != 4 {
		t.Errorf("%d entities in %d PDUs, want the 4 bots", len(entities), len(dgrams))
	}

	// Velocity against successive positions: the mean of two PDUs' velocities is
	// the distance between them over the time between them (their timestamps), for
	// PDUs at most 1 s apart. The difference is taken apart along the reported
	// velocity and across it. Across it (a velocity in the wrong frame, axes swapped
	// or turned), nothing but the gateway's conversion shows: within velSlack for all
	// but one pair in twenty (a bot's hard brake or collision is not a constant
	// acceleration), and the median within a tenth of it. Along it (a velocity
	// scaled or reversed), the host's frame timing shows too: a state is stamped
	// with its frame's time, not its physics step's, and a host starved of CPU skips
	// time its tanks do not move through (game.Config.MaxStep), so a loaded machine
	// moves the distance over the time by a few per cent either way. The median of
	// the moved speed along the reported velocity over its speed is within
	// speedSlack of 1: a scale error of the gateway's shows at any load.
	const velSlack = 3.0   // m/s
	const speedSlack = 0.1 // of the reported speed
	var across, ratios []float64
	for e, ps := range entities {
		for k := 1; k < len(ps); k++ {
			a, b := ps[k-1], ps[k]
			dt := disSeconds(b.TS) - disSeconds(a.TS)
			mean := a.Vel.Add(b.Vel).Mul(0.5)
			if dt < 0.05 || dt > 1 || mean.Len() < 1 {
				continue
			}
			moved := b.Loc.Sub(a.Loc).Mul(1 / dt)
			dir := mean.Normalize()
			along := moved.Dot(dir)
			d := moved.Sub(dir.Mul(along)).Len()
			across = append(across, d)
			ratios = append(ratios, along/mean.Len())
			if d > velSlack {
				t.Logf("entity %d: moved at %.2f m/s over %.2f s, reported %.2f m/s: %.2f m/s across it", e, moved.Len(), dt, mean.Len(), d)
			}
		}
	}
	slices.Sort(across)
	slices.Sort(ratios)
	if len(across) < 10 {
		t.Fatalf("only %d pairs of PDUs of a moving tank in %d PDUs", len(across), len(dgrams))
	}
	p95, med, ratio := across[len(across)*95/100], across[len(across)/2], ratios[len(ratios)/2]
	t.Logf("moved against reported velocity: across it median %.2f m/s, 95th percentile %.2f m/s; along it, median speed ×%.3f",
		med, p95, ratio)
	if p95 > velSlack || med > velSlack/10 {
		t.Errorf("velocity against successive positions: median %.2f m/s, 95th percentile %.2f m/s across it, want under %.2f and %.1f",
			med, p95, velSlack/10, velSlack)
	}
	if math.Abs(ratio-1) > speedSlack {
		t.Errorf("tanks moved at %.3f times their reported speed (median), want within %.2f of 1", ratio, speedSlack)
	}
	t.Logf("%d PDUs of %d entities; %d pairs of a moving tank checked", len(dgrams), len(entities), len(across))
}

// disSeconds returns the seconds past the hour of a DIS relative timestamp.
func disSeconds(ts uint32) float64 { return float64(ts>>1) * 3600 / (1 << 31) }
