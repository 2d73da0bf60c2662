// Package distest holds what the DIS gateway's tests share with other packages'
// tests: a pcap file of datagrams for Wireshark's dissector, and npm's Open-DIS
// installed once in the user's cache for node to run.
package distest

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Pcap returns dgrams, each sent to port, as a pcap file of raw IPv4 packets
// (LINKTYPE_RAW) from 127.0.0.1:40000 to 127.0.0.1:port, for tshark to read.
func Pcap(port int, dgrams [][]byte) []byte {
	var b bytes.Buffer
	le := binary.LittleEndian
	for _, v := range []uint32{0xa1b2c3d4, 2 | 4<<16, 0, 0, 65535, 101} {
		_ = binary.Write(&b, le, v)
	}
	for i, d := range dgrams {
		n := 28 + len(d)
		_ = binary.Write(&b, le, []uint32{uint32(1000 + i), 0, uint32(n), uint32(n)})
		ip := []byte{0x45, 0, byte(n >> 8), byte(n), 0, 0, 0x40, 0, 64, 17, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1}
		var sum uint32
		for j := 0; j < 20; j += 2 {
			sum += uint32(ip[j])<<8 | uint32(ip[j+1])
		}
		for sum > 0xffff {
			sum = sum&0xffff + sum>>16
		}
		binary.BigEndian.PutUint16(ip[10:], ^uint16(sum))
		b.Write(ip)
		udp := make([]byte, 8)
		binary.BigEndian.PutUint16(udp, 40000)
		binary.BigEndian.PutUint16(udp[2:], uint16(port))
		binary.BigEndian.PutUint16(udp[4:], uint16(8+len(d)))
		b.Write(udp)
		b.Write(d)
	}
	return b.Bytes()
}

// OpenDIS returns node and a directory whose node_modules holds npm's open-dis,
// installed in the user's cache on first use, or skips t saying what is missing
// (node, npm, or the package registry).
func OpenDIS(t testing.TB) (node, dir string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed: nothing checked against Open-DIS")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir = filepath.Join(cache, "treadline", "open-dis")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "open-dis")); err == nil {
		return node, dir
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm not installed: nothing checked against Open-DIS")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(npm, "install", "--no-audit", "--no-fund", "--prefix", dir, "open-dis@1").CombinedOutput(); err != nil {
		t.Skipf("npm install open-dis failed (offline?): %v\n%s", err, out)
	}
	return node, dir
}
