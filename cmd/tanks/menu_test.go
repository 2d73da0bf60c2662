package main

import (
	"strings"
	"testing"

	"github.com/treadline/treadline/client"
)

// TestMenuOrFlags: no match flags opens the menu (display flags may be given); any
// match flag, -screenshot and -bench-frames included, starts the match directly.
func TestMenuOrFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		menu bool
	}{
		{nil, true},
		{[]string{"-size", "800x600", "-overlays", "all", "-v", "-mute"}, true},
		{[]string{"-bots", "3"}, false},
		{[]string{"-lag", "50ms", "-jitter", "10ms"}, false},
		{[]string{"-join", "127.0.0.1:7777"}, false},
		{[]string{"-host", ":7777"}, false},
		{[]string{"-screenshot", t.TempDir() + "/x.png"}, false},
		{[]string{"-bench-frames", "10"}, false},
	} {
		fs := newTestFlagSet()
		if _, err := parseFlags(fs, c.args); err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		if got := wantsMenu(setOf(fs)); got != c.menu {
			t.Errorf("%q: menu %v, want %v", c.args, got, c.menu)
		}
	}
}

// TestMenuChoices: the menu's Host and Join values become the match's configuration,
// and are vetted by the flags' validators.
func TestMenuChoices(t *testing.T) {
	s := client.DefaultSettings()
	s.Name = "ann"
	s.Last = client.LastMatch{HostPort: 9901, HostPass: "pw", HostBots: 5, JoinAddr: "10.0.0.2:7777", JoinPass: "jp"}
	base := config{width: 800, height: 600}
	if c := matchFor(base, client.MenuHost, s); c.host != ":9901" || c.pass != "pw" || c.bots != 5 || !c.botsSet || c.width != 800 {
		t.Errorf("host: %+v", c)
	}
	if c := matchFor(base, client.MenuJoin, s); c.join != "10.0.0.2:7777" || c.pass != "jp" || c.name != "ann" {
		t.Errorf("join: %+v", c)
	}
	if c := matchFor(base, client.MenuJoin, s); c.remember {
		t.Errorf("a typed address is remembered as a match found on the local network: %+v", c)
	}
	lan := s
	lan.Last.JoinAddr, lan.Last.JoinVia = "10.0.0.2:7777#"+strings.Repeat("ab", 32), "lan"
	if c := matchFor(base, client.MenuJoin, lan); !c.remember || c.join != lan.Last.JoinAddr {
		t.Errorf("a match found on the local network: %+v, want its fingerprint pinned and remembered", c)
	}
	if c := matchFor(base, client.MenuPractice, s); c.host != "" || c.join != "" {
		t.Errorf("practice: %+v", c)
	}
	if err := checkChoice(client.MenuJoin, s); err != nil {
		t.Errorf("a good join refused: %v", err)
	}
	for _, c := range []struct {
		mode client.MenuMode
		edit func(*client.Settings)
		want string
	}{
		{client.MenuJoin, func(s *client.Settings) { s.Last.JoinAddr = "" }, `"": give the host's address`},
		{client.MenuJoin, func(s *client.Settings) { s.Last.JoinAddr = "nohost" }, `"nohost": give the host's address`},
		{client.MenuHost, func(s *client.Settings) { s.Last.HostPort = -1 }, "port -1: give a port from 1 to 65535"},
		{client.MenuHost, func(s *client.Settings) { s.Last.HostBots = 1000 }, "1000: give 0 to 511 bots"},
	} {
		bad := s
		c.edit(&bad)
		if err := checkChoice(c.mode, bad); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v with %+v: %v, want %q", c.mode, bad.Last, err, c.want)
		}
	}
}

// TestMenuJoinAsObserver: the Join menu's "Join as: observer" starts the join as an
// observer, and a player's join as a player.
func TestMenuJoinAsObserver(t *testing.T) {
	s := client.DefaultSettings()
	s.Last.JoinAddr = "10.0.0.2:7777"
	if c := matchFor(config{}, client.MenuJoin, s); c.observe || c.join != s.Last.JoinAddr {
		t.Errorf("a player's join: %+v", c)
	}
	s.Last.JoinObserve = true
	if c := matchFor(config{}, client.MenuJoin, s); !c.observe {
		t.Error("Join as: observer joined as a player")
	}
}
