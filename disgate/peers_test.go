package disgate

import (
	"encoding/json"
	"fmt"
	"math"
	stdnet "net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/disgate/distest"
	"github.com/treadline/treadline/internal/memnet"
	"github.com/treadline/treadline/net/dis"
)

// capture runs a gateway of site 3, application 4 sending to a loopback socket,
// tells it of tank 7 ("ace", team 1) and its departure, and returns the datagrams
// it sent and the port they went to. Gateway and socket are on an in-memory network
// (internal/memnet) in a synctest bubble: the wait for the PDUs is on the bubble's
// clock, and the tools that read them afterwards get the bytes, not the socket.
func capture(t *testing.T, version uint8) ([][]byte, int) {
	t.Helper()
	var (
		out  [][]byte
		port int
	)
	synctest.Test(t, func(t *testing.T) {
		lan := memnet.New()
		udp, err := stdnet.ListenUDP("udp4", &stdnet.UDPAddr{IP: stdnet.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		sink, err := lan.Wrap(udp)
		if err != nil {
			udp.Close()
			t.Fatal(err)
		}
		defer sink.Close()
		port = sink.LocalAddr().(*stdnet.UDPAddr).Port
		g, err := New(Config{Addr: sink.LocalAddr().String(), Listen: "127.0.0.1:0", Site: 3, Application: 4,
			Version: version, Wrap: lan.Wrap})
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		g.Spawned(7, 1, "ace", 1, turning(mgl64.Vec3{100, 0, -50}, 0.3), 1)
		g.Despawned(7, 2)
		buf := make([]byte, 2048)
		for len(out) < 2 {
			_ = sink.SetReadDeadline(time.Now().Add(5 * time.Second))
			n, _, err := sink.ReadFrom(buf)
			if err != nil {
				t.Fatalf("read the gateway's PDUs: %v", err)
			}
			out = append(out, append([]byte(nil), buf[:n]...))
		}
	})
	if len(out) < 2 {
		t.FailNow() // the bubble said why
	}
	return out, port
}

// TestTsharkDecodesPDUs: Wireshark's DIS dissector reads the gateway's Entity State
// and Remove Entity PDUs as they are meant: type, ids, marking and location.
func TestTsharkDecodesPDUs(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("tshark not installed (Debian: apt-get install tshark): the gateway's PDUs not checked against Wireshark's DIS dissector")
	}
	dgrams, port := capture(t, dis.Version7)
	pcap := filepath.Join(t.TempDir(), "dis.pcap")
	if err := os.WriteFile(pcap, distest.Pcap(port, dgrams), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tshark, "-r", pcap, "-V", "-d", fmt.Sprintf("udp.port==%d,dis", port)).CombinedOutput()
	if err != nil {
		t.Fatalf("tshark: %v\n%s", err, out)
	}
	text := string(out)
	es, _, _ := dis.Parse(dgrams[0])
	loc := es.(*dis.EntityState).Location
	for _, want := range []string{
		"Distributed Interactive Simulation", "Entity State", "Remove Entity",
		"Site: 3", "Application: 4", "Entity: 7", "Entity Marking: ace", "Force ID: 1", "(1:1:0:1:0:0:0)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("tshark's decoding lacks %q", want)
		}
	}
	_, after, _ := strings.Cut(text, "Entity Location")
	m := regexp.MustCompile(`X: (\S+)\s+Y: (\S+)\s+Z: (\S+)`).FindStringSubmatch(after)
	if m == nil {
		t.Errorf("tshark shows no entity location")
	} else {
		var got mgl64.Vec3
		for i := range got {
			got[i], _ = strconv.ParseFloat(m[i+1], 64)
		}
		if d := got.Sub(loc).Len(); d > 1e-3 {
			t.Errorf("tshark reads the location %v, sent %v", got, loc)
		}
	}
	if t.Failed() {
		t.Logf("tshark -V:\n%s", text)
	}
	if strings.Contains(text, "Malformed") {
		t.Errorf("tshark reports a malformed packet:\n%s", text)
	}
}

// TestOpenDISDecodes: Open-DIS (JavaScript, 1278.1a-1998) reads a version 6 Entity
// State PDU of the gateway as the gateway meant it.
func TestOpenDISDecodes(t *testing.T) {
	node, dir := distest.OpenDIS(t)
	dgrams, _ := capture(t, dis.Version6)
	bin := filepath.Join(t.TempDir(), "es.bin")
	if err := os.WriteFile(bin, dgrams[0], 0o644); err != nil {
		t.Fatal(err)
	}
	script := `
globalThis.dis = {};
const D = require("open-dis");
const fs = require("fs");
const b = fs.readFileSync(process.argv[process.argv.length - 1]);
const ab = b.buffer.slice(b.byteOffset, b.byteOffset + b.length);
const p = new D.PduFactory().createPdu(ab);
const m = p.marking.characters.filter(c => c > 0).map(c => String.fromCharCode(c)).join("");
console.log(JSON.stringify({type: p.pduType, site: p.entityID.site, app: p.entityID.application, entity: p.entityID.entity,
  force: p.forceId, marking: m, x: p.entityLocation.x, y: p.entityLocation.y, z: p.entityLocation.z,
  alg: p.deadReckoningParameters.deadReckoningAlgorithm, kind: p.entityType.entityKind, domain: p.entityType.domain,
  category: p.entityType.category, arts: p.articulationParameters.map(a => [a.parameterType, a.parameterValue])}));
`
	cmd := exec.Command(node, "-e", script, bin)
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(dir, "node_modules"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, tail(out))
	}
	var got struct {
		Type, Site, App, Entity, Force, Alg, Kind, Domain, Category int
		Marking                                                     string
		X, Y, Z                                                     float64
		Arts                                                        [][2]float64
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	es, _, _ := dis.Parse(dgrams[0])
	loc := es.(*dis.EntityState).Location
	if got.Type != 1 || got.Site != 3 || got.App != 4 || got.Entity != 7 || got.Force != 1 || got.Marking != "ace" ||
		got.Alg != 4 || got.Kind != 1 || got.Domain != 1 || got.Category != 1 {
		t.Errorf("Open-DIS read %+v", got)
	}
	if d := (mgl64.Vec3{got.X, got.Y, got.Z}).Sub(loc).Len(); d > 1e-6 {
		t.Errorf("Open-DIS read the location %v %v %v, sent %v", got.X, got.Y, got.Z, loc)
	}
	if len(got.Arts) != 2 || got.Arts[0][0] != float64(dis.ParamTurretAzimuth) || math.Abs(got.Arts[0][1]-0.5) > 1e-9 ||
		got.Arts[1][0] != float64(dis.ParamGunElevation) || math.Abs(got.Arts[1][1]-0.1) > 1e-9 {
		t.Errorf("Open-DIS read the articulations %v", got.Arts)
	}
}

// TestOpenDISCircler: an entity Open-DIS sends, circling 20 m round the map's
// origin, is kept by the gateway under its marking, on its circle.
func TestOpenDISCircler(t *testing.T) {
	node, dir := distest.OpenDIS(t)
	g, err := New(Config{Addr: fmt.Sprintf("127.0.0.1:%d", freePort(t))})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	go g.Receive()
	port := g.LocalAddr().(*stdnet.UDPAddr).Port
	o := dis.DefaultOrigin
	// The script places the entity itself: east e, north n on the plane tangent at
	// the origin, in ECEF, by the formulas (Open-DIS's ENUtoECEF wants radians).
	script := fmt.Sprintf(`
globalThis.dis = {};
const D = require("open-dis");
const dgram = require("dgram");
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
  p.entityLocation.x = o[0] + e * E[0] + n * Nn[0];
  p.entityLocation.y = o[1] + e * E[1] + n * Nn[1];
  p.entityLocation.z = o[2] + e * E[2] + n * Nn[2];
  p.entityLinearVelocity.x = ve * E[0] + vn * Nn[0];
  p.entityLinearVelocity.y = ve * E[1] + vn * Nn[1];
  p.entityLinearVelocity.z = ve * E[2] + vn * Nn[2];
  p.deadReckoningParameters.deadReckoningAlgorithm = 2;
  p.marking.characterSet = 1;
  p.marking.characters = [..."circler"].map(c => c.charCodeAt(0)).concat(Array(4).fill(0));
  const out = new D.OutputStream(new ArrayBuffer(1500));
  p.encodeToBinary(out);
  sock.send(Buffer.from(out.toByteArray()), %d, "127.0.0.1");
  if (++k >= 20) setTimeout(() => sock.close(), 100); else setTimeout(send, 100);
};
send();
`, o.Lat, o.Lon, port)
	cmd := exec.Command(node, "-e", script)
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(dir, "node_modules"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node: %v\n%s", err, tail(out))
	}
	ents := g.Entities(nil, time.Now())
	if len(ents) != 1 {
		t.Fatalf("%d entities after Open-DIS's circler, want 1 (stats %+v)", len(ents), g.Stats())
	}
	e := ents[0]
	if e.Name != "circler"+EntityTag || e.Force != 2 || e.ID != (dis.EntityID{Site: 42, Application: 43, Entity: 1}) {
		t.Errorf("entity %+v", e)
	}
	p := e.State.Position
	if d := math.Hypot(p[0], p[2]); math.Abs(d-20) > 0.5 || math.Abs(p[1]) > 0.5 {
		t.Errorf("the circler is at %v, %.2f m from the origin; want 20 m on the ground plane", p, d)
	}
	if st := g.Stats(); st.Received < 20 || len(st.Dropped) > 0 && st.Dropped["invalid"]+st.Dropped["length"]+st.Dropped["truncated"] > 0 {
		t.Errorf("stats %+v", st)
	}
}

// tail returns the end of a tool's output: a minified library's stack trace
// quotes the whole library.
func tail(b []byte) []byte {
	if len(b) > 1500 {
		return b[len(b)-1500:]
	}
	return b
}
