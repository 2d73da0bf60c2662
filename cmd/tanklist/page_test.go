package main

import (
	"context"
	"flag"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/treadline/treadline/lobby"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
)

var docs = flag.Bool("docs", false, "write the list page's browser screenshot to assets/docs/tanklist.png")

// TestPageInBrowser renders the list page in headless Chromium with three matches
// listed (one of a fleet, one needing a passphrase) and checks the screenshot; with
// -docs it keeps it as assets/docs/tanklist.png.
func TestPageInBrowser(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (apt-get install -y chromium): the list page is not tried in a browser")
	}
	listURL := startList(t)
	for _, m := range []struct {
		name, mapName string
		pass, fleet   bool
	}{{"ann", "valley", true, false}, {"eu-fleet-7", "dunes", false, true}, {"Tomás", "dunes", false, false}} {
		h, err := net.Listen(context.Background(), net.HostConfig{Addr: "127.0.0.1:0", Name: m.name, Passphrase: map[bool]string{true: "x"}[m.pass],
			Match: net.MatchSettings{Map: m.mapName}})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		e := lobby.Entry{Name: m.name, Map: m.mapName, Players: len(m.name) % 5, Capacity: 8, Passphrase: m.pass,
			Version: int(wire.Version), Fingerprint: h.Fingerprint(), Fleet: m.fleet}
		r := lobby.Register(lobby.RegisterConfig{URLs: []string{listURL}, Port: udpPort(h), Certificate: h.Certificate(), Status: func() lobby.Entry { return e }})
		defer r.Close()
		waitListed(t, listURL, func(l lobby.Entry) bool { return l.Fingerprint == h.Fingerprint() })
	}
	shot := filepath.Join(t.TempDir(), "tanklist.png")
	if *docs {
		shot, _ = filepath.Abs("../../assets/docs/tanklist.png")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	page := listURL[:len(listURL)-len("#")-lobby.FingerprintLen]
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--ignore-certificate-errors",
		"--hide-scrollbars", "--window-size=1280,300", "--screenshot="+shot, page)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 300 {
		t.Errorf("screenshot %v, want 1280x300", b)
	}
	// Text on a white page: many pixels differ from the first.
	first, differ := img.At(0, 0), 0
	for y := 0; y < img.Bounds().Dy(); y += 3 {
		for x := 0; x < img.Bounds().Dx(); x += 3 {
			if img.At(x, y) != first {
				differ++
			}
		}
	}
	if differ < 1000 {
		t.Errorf("the screenshot is nearly blank (%d sampled pixels differ)", differ)
	}
	t.Logf("screenshot %s", shot)
}
