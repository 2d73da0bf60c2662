package main

import (
	"context"
	"flag"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/treadline/treadline/cmd/internal/cli"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/render"
)

func parse(args ...string) (config, error) {
	fs := flag.NewFlagSet("tanks", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return parseFlags(fs, args)
}

func TestParseFlagsDefaults(t *testing.T) {
	c, err := parse()
	if err != nil {
		t.Fatal(err)
	}
	if c.host != "" || c.join != "" || c.botsSet || c.impairSet || c.screenshot != "" {
		t.Errorf("no flags should mean a default practice match, got %+v", c)
	}
	if c.width != 1280 || c.height != 720 {
		t.Errorf("default size %dx%d, want 1280x720", c.width, c.height)
	}
	if c.overlays != 0 {
		t.Errorf("default overlays %v", c.overlays)
	}
	// The client ships the game's one dead-reckoning value, the one the host, the
	// match and drlab's "game" algorithm run.
	if c.deadReckoning != game.DeadReckoning() {
		t.Errorf("default dead reckoning %+v\nwant the game's %+v", c.deadReckoning, game.DeadReckoning())
	}
}

func TestParseFlags(t *testing.T) {
	fp := strings.Repeat("ab", 32)
	shot := filepath.Join(t.TempDir(), "x.png")
	c, err := parse("-join", "10.0.0.2:7777#"+fp, "-name", "ann", "-pass", "pw", "-lag", "80ms",
		"-jitter", "15ms", "-loss", "0.05", "-overlays", "ghost,labels", "-size", "800x600",
		"-algorithm", "bezier", "-clamp", "up", "-screenshot", shot, "-frames", "30", "-bench-frames", "10")
	if err != nil {
		t.Fatal(err)
	}
	dr := game.DeadReckoning()
	dr.Reckon.Algorithm, dr.Reckon.Clamp.Mode = deadreckon.CubicBezier, deadreckon.ClampUp
	want := config{join: "10.0.0.2:7777#" + fp, name: "ann", pass: "pw", lag: 80 * time.Millisecond,
		jitter: 15 * time.Millisecond, loss: 0.05, impairSet: true, overlays: render.OverlayGhost | render.OverlayLabels,
		width: 800, height: 600, deadReckoning: dr,
		screenshot: shot, frames: 30, benchFrames: 10, mapDir: c.mapDir, seed: 1, identity: c.identity, defences: c.defences, find: c.find}
	if c != want {
		t.Errorf("parse = %+v\nwant    %+v", c, want)
	}
	c, err = parse("-join", "10.0.0.2:7777", "-lag", "500ms", "-loss", "0.3", "-loss-burst", "3")
	if err != nil || !c.impairSet || c.lossBurst != 3 || c.loss != 0.3 {
		t.Errorf("-loss 0.3 -loss-burst 3 = %+v, %v", c, err)
	}
	c, err = parse("-join", "10.0.0.2:7777", "-observe")
	if err != nil || !c.observe {
		t.Errorf("-join ADDR -observe = %+v, %v", c, err)
	}
	c, err = parse("-host", ":7777", "-list", "https://list.example:8443#"+fp)
	if err != nil || !c.list.set || c.list.urls != "https://list.example:8443#"+fp {
		t.Errorf("-host -list URL = %+v, %v", c.list, err)
	}
	c, err = parse("-list", "-lists", "https://a.example,https://b.example", "-lan", "off")
	if err != nil || !c.list.set || c.list.urls != "" || len(splitURLs(c.lists)) != 2 || c.find.LAN != "off" {
		t.Errorf("-list -lists A,B -lan off = %+v %q, %v", c.list, c.lists, err)
	}
	c, err = parse("-lists", "https://a.example")
	if err != nil || !c.listsSet || c.lists != "https://a.example" || c.list.set {
		t.Errorf("-lists A (for the menu, which remembers it) = %+v %q, %v", c.list, c.lists, err)
	}
	c, err = parse("-host", ":7777", "-map", "dunes")
	if err != nil || c.hostMap == nil || c.hostMap.Name() != "dunes" {
		t.Errorf("-host :7777 -map dunes = %+v, %v", c, err)
	}
	c, err = parse("-host", ":7777", "-bots", "0", "-max-players-per-addr", "2", "-idle-kick", "1m")
	if err != nil || c.host != ":7777" || !c.botsSet || c.bots != 0 {
		t.Errorf("-host :7777 -bots 0 = %+v, %v", c, err)
	}
	if l := c.defences.Limits(); l.MaxPlayersPerAddr != 2 || l.IdleKick != time.Minute {
		t.Errorf("-max-players-per-addr 2 -idle-kick 1m gave limits %+v", l)
	}
}

// TestBadInput: every bad command line is refused before anything starts, with one
// line naming the flag and what it allows, and the usage exit code.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string // the whole line "tanks: …" starts with this
	}{
		{[]string{"-bots", "1000"}, "tanks: -bots 1000: give 0 to 511 bots"},
		{[]string{"-host", ":7777", "-bots", "100000"}, "tanks: -bots 100000: give 0 to 511 bots"},
		{[]string{"-bots", "-1"}, "tanks: -bots -1: give 0 to 511 bots"},
		{[]string{"-loss", "NaN"}, "tanks: -loss NaN: give a fraction from 0 to 1"},
		{[]string{"-loss", "1.5"}, "tanks: -loss 1.5: give a fraction from 0 to 1"},
		{[]string{"-jitter", "500ms", "-lag", "10ms"}, "tanks: -jitter 500ms is larger than -lag 10ms"},
		{[]string{"-lag", "1h"}, "tanks: -lag 1h0m0s: give at most 500ms of added one-way delay"},
		{[]string{"-lag", "-1s"}, "tanks: -lag -1s: give a delay of 0 or more"},
		{[]string{"-screenshot", "/nonexistent/x.png"}, "tanks: -screenshot /nonexistent/x.png: directory /nonexistent does not exist"},
		{[]string{"-screenshot", filepath.Join(dir, "x.jpg")}, "tanks: -screenshot " + filepath.Join(dir, "x.jpg") + ": give a file name ending in .png"},
		{[]string{"-screenshot", dir + "/"}, "tanks: -screenshot " + dir + "/: give a file name ending in .png"},
		{[]string{"-scoreboard"}, "tanks: -scoreboard needs -screenshot (in play, hold Tab)"},
		{[]string{"-watch", ""}, `tanks: -watch "": give a name of 1 to`},
		{[]string{"-name", ""}, `tanks: -name "": give a name of 1 to`},
		{[]string{"-name", strings.Repeat("n", 300)}, `tanks: -name "nnn`},
		{[]string{"-join", ""}, `tanks: -join "": give the host's address as HOST:PORT`},
		{[]string{"-join", "nohost"}, `tanks: -join "nohost": give the host's address as HOST:PORT`},
		{[]string{"-join", "h:1#abc"}, `tanks: -join "h:1#abc": give the host's address`},
		{[]string{"-join", "h:99999"}, `tanks: -join "h:99999": give the host's address`},
		{[]string{"-join", "h:1", "-bots", "3"}, "tanks: -bots with -join: bots run on the host"},
		{[]string{"-observe"}, "tanks: -observe needs -join: an observer watches a hosted match"},
		{[]string{"-host", "7777"}, `tanks: -host "7777": give [HOST]:PORT`},
		{[]string{"-host", ":1", "-join", "a:1"}, "tanks: -host and -join cannot be used together"},
		{[]string{"-host", ":1", "-lag", "50ms"}, "tanks: -host with -lag, -jitter, -loss or -loss-burst"},
		{[]string{"-host", ":1", "-loss-burst", "3"}, "tanks: -host with -lag, -jitter, -loss or -loss-burst"},
		{[]string{"-loss-burst", "-1"}, "tanks: -loss-burst -1: give a mean run length of 0 or more packets"},
		{[]string{"-loss-burst", "Inf"}, "tanks: -loss-burst +Inf: give a mean run length of 0 or more packets"},
		{[]string{"-loss", "1", "-loss-burst", "3"}, "tanks: -loss-burst 3 with -loss 1: every packet is lost already"},
		{[]string{"-maps", "/nonexistent"}, "tanks: -maps /nonexistent: no such directory"},
		{[]string{"-host", ":1", "-map", "atlantis"}, `tanks: -map "atlantis": give one of dunes, expanse, valley, or a map file NAME.json`},
		{[]string{"-host", ":1", "-map", "/nonexistent/x.json"}, "tanks: -map /nonexistent/x.json: no such file"},
		{[]string{"-map", "dunes"}, "tanks: -map applies to -host only"},
		{[]string{"-dis", "239.1.2.3:3000"}, "tanks: -dis needs -host: the DIS gateway runs in the host"},
		{[]string{"-list", "https://list.example"}, "tanks: -list https://list.example: registering with a list server needs -host"},
		{[]string{"-host", ":1", "-list"}, "tanks: -list alone lists the matches found and exits"},
		{[]string{"-host", ":1", "-list", "ftp://x"}, `tanks: unexpected argument "ftp://x"`},
		{[]string{"-host", ":1", "-list=https://x#abc"}, `tanks: -list list "https://x#abc": the fingerprint after # is not 64 hex digits`},
		{[]string{"-join", "a:1", "-lists", "https://list.example"}, "tanks: -lists goes with -list or the menu"},
		{[]string{"-list", "-lists", "nonsense"}, `tanks: -lists list "nonsense": give https://HOST[:PORT]`},
		{[]string{"-list", "-lan", "nosuchif0"}, `tanks: -lan "nosuchif0": lobby: network interface "nosuchif0"`},
		{[]string{"-size", "big"}, `tanks: -size "big": give WxH`},
		{[]string{"-size", "10x10"}, `tanks: -size "10x10": give WxH`},
		{[]string{"-size", "1280x"}, `tanks: -size "1280x": give WxH`},
		{[]string{"-overlays", "ghost,nope"}, `tanks: -overlays "ghost,nope"`},
		{[]string{"-algorithm", "magic"}, `tanks: -algorithm "magic": give pvb`},
		{[]string{"-clamp", "sometimes"}, `tanks: -clamp "sometimes": give none, up or always`},
		{[]string{"-frames", "5"}, "tanks: -frames and -duration need -screenshot"},
		{[]string{"-bench-frames", "-2"}, "tanks: -bench-frames -2: give 0 or more"},
		{[]string{"-bench-frames", "5", "-cpuprofile", "/nonexistent/cpu.prof"}, "tanks: -cpuprofile /nonexistent/cpu.prof: directory /nonexistent does not exist"},
		{[]string{"-bots", "many"}, `tanks: invalid value "many" for flag -bots`},
		{[]string{"-identity", filepath.Join(dir, "id.pem")}, "tanks: -identity and -new-identity apply to -host only"},
		{[]string{"-join", "h:1", "-new-identity"}, "tanks: -identity and -new-identity apply to -host only"},
		{[]string{"-nonsense"}, "tanks: flag provided but not defined: -nonsense"},
		{[]string{"-replay", "/nonexistent.tread"}, "tanks: -replay /nonexistent.tread: no such file"},
		{[]string{"-replay", filepath.Join(dir, "id.pem"), "-host", ":1"}, "tanks: -host with -replay: a replay plays a recorded match"},
		{[]string{"-replay", filepath.Join(dir, "id.pem"), "-record", "x.tread"}, "tanks: -record with -replay"},
		{[]string{"-replay", filepath.Join(dir, "id.pem"), "-speed", "9"}, "tanks: -speed 9: give 0.25 to 4"},
		{[]string{"-replay", filepath.Join(dir, "id.pem"), "-ab", "magic"}, `tanks: -ab "magic": give pvb`},
		{[]string{"-replay", filepath.Join(dir, "id.pem"), "-seek", "-1s"}, "tanks: -seek -1s: give 0 or more"},
		{[]string{"-killcam"}, "tanks: -killcam needs -replay"},
		{[]string{"stray"}, `tanks: unexpected argument "stray"`},
	} {
		var stderr strings.Builder
		err := run(context.Background(), c.args, io.Discard, &stderr)
		line := cli.Line("tanks", err)
		if code := cli.Code(err); code != cli.ExitUsage {
			t.Errorf("tanks %q: exit code %d (%v), want %d", c.args, code, err, cli.ExitUsage)
		}
		if !strings.HasPrefix(line, c.want) || strings.Contains(line, "\n") {
			t.Errorf("tanks %q:\n got %q\nwant %q…", c.args, line, c.want)
		}
		if stderr.Len() != 0 {
			t.Errorf("tanks %q printed more than its one line:\n%s", c.args, stderr.String())
		}
	}
}

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		w, h int
	}{{"1280x720", 1280, 720}, {"640X360", 640, 360}, {"64x64", 64, 64}} {
		w, h, err := parseSize(c.in)
		if err != nil || w != c.w || h != c.h {
			t.Errorf("parseSize(%q) = %d, %d, %v", c.in, w, h, err)
		}
	}
}

func newTestFlagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("tanks", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

func setOf(fs *flag.FlagSet) map[string]bool { return cli.Set(fs) }
