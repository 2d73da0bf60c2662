package main

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"

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
	c, err := parse("-join", "10.0.0.2:7777#abcd", "-name", "ann", "-pass", "pw", "-lag", "80ms",
		"-jitter", "15ms", "-loss", "0.05", "-overlays", "ghost,labels", "-size", "800x600",
		"-algorithm", "bezier", "-clamp", "up", "-screenshot", "x.png", "-frames", "30", "-bench-frames", "10")
	if err != nil {
		t.Fatal(err)
	}
	dr := game.DeadReckoning()
	dr.Reckon.Algorithm, dr.Reckon.Clamp.Mode = deadreckon.CubicBezier, deadreckon.ClampUp
	want := config{join: "10.0.0.2:7777#abcd", name: "ann", pass: "pw", lag: 80 * time.Millisecond,
		jitter: 15 * time.Millisecond, loss: 0.05, impairSet: true, overlays: render.OverlayGhost | render.OverlayLabels,
		width: 800, height: 600, deadReckoning: dr,
		screenshot: "x.png", frames: 30, benchFrames: 10, mapDir: c.mapDir, seed: 1, defences: c.defences}
	if c != want {
		t.Errorf("parse = %+v\nwant    %+v", c, want)
	}
	c, err = parse("-host", ":7777", "-bots", "0", "-max-players-per-addr", "2", "-idle-kick", "1m")
	if err != nil || c.host != ":7777" || !c.botsSet || c.bots != 0 {
		t.Errorf("-host :7777 -bots 0 = %+v, %v", c, err)
	}
	if l := c.defences.Limits(); l.MaxPlayersPerAddr != 2 || l.IdleKick != time.Minute {
		t.Errorf("-max-players-per-addr 2 -idle-kick 1m gave limits %+v", l)
	}
}

func TestParseFlagsErrors(t *testing.T) {
	cases := [][]string{
		{"-host", ":1", "-join", "a:1"},
		{"-bots", "-1"},
		{"-loss", "1.5"},
		{"-lag", "-1s"},
		{"-size", "big"},
		{"-size", "10x10"},
		{"-size", "1280x"},
		{"-overlays", "ghost,nope"},
		{"-algorithm", "magic"},
		{"-clamp", "sometimes"},
		{"-frames", "5"},
		{"-bench-frames", "-2"},
		{"stray"},
	}
	for _, args := range cases {
		if _, err := parse(args...); err == nil {
			t.Errorf("tanks %s: no error", strings.Join(args, " "))
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
