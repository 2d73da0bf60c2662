package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/treadline/treadline/client"
	"github.com/treadline/treadline/cmd/internal/cli"
	"github.com/treadline/treadline/game"
)

// matchFlags are the flags that start a match directly, without the main menu.
var matchFlags = []string{"host", "join", "observe", "pass", "name", "bots", "lag", "jitter", "loss", "loss-burst", "seed", "maps", "map",
	"screenshot", "frames", "duration", "bench-frames", "watch", "identity", "new-identity", "record", "replay"}

// wantsMenu reports whether the command line leaves the choice of match to the menu.
func wantsMenu(set map[string]bool) bool {
	for _, f := range matchFlags {
		if set[f] {
			return false
		}
	}
	return true
}

// loadSettings reads the player's settings, saying so in one line when the file is
// damaged (the defaults are used, and the next save replaces it).
func loadSettings(stderr io.Writer) client.Settings {
	path := client.DefaultSettingsPath()
	if path == "" {
		return client.DefaultSettings()
	}
	s, err := client.LoadSettings(path)
	if err != nil {
		fmt.Fprintln(stderr, "tanks:", err)
	}
	return s
}

// saveSettings keeps s in the user's config directory; a failure is said once per
// call and does not stop the game.
func saveSettings(s client.Settings, stderr io.Writer) {
	if path := client.DefaultSettingsPath(); path != "" {
		if err := s.Save(path); err != nil {
			fmt.Fprintln(stderr, "tanks:", err)
		}
	}
}

// openSound opens the sound at the settings' volume, or none with -mute or when the
// settings mute it; no audio device is told in one line.
func openSound(c config, s client.Settings, stderr io.Writer) *client.Sound {
	vol := s.Volume
	if vol == 0 {
		vol = client.Silent // a volume set to zero, not the default
	}
	snd, err := client.OpenSound(client.SoundConfig{Mute: c.mute || s.Mute, Volume: vol})
	if err != nil {
		fmt.Fprintln(stderr, "tanks: sound off:", err)
	}
	return snd
}

// ignoreCanceled returns nil for a cancellation (SIGINT, SIGTERM), err otherwise.
func ignoreCanceled(err error) error {
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// matchFor is the configuration of the match the menu chose: the display flags of c
// with the choice's mode and the remembered values.
func matchFor(c config, mode client.MenuMode, s client.Settings) config {
	switch mode {
	case client.MenuHost:
		c.host, c.pass, c.bots, c.botsSet = ":"+strconv.Itoa(s.Last.HostPort), s.Last.HostPass, s.Last.HostBots, true
	case client.MenuJoin:
		c.join, c.pass, c.name, c.observe = s.Last.JoinAddr, s.Last.JoinPass, s.Name, s.Last.JoinObserve
		c.remember = s.Last.JoinVia == "lan" && strings.Contains(c.join, "#")
	}
	return c
}

// checkChoice vets the menu's Host and Join values with the flags' own validators.
func checkChoice(mode client.MenuMode, s client.Settings) error {
	var err error
	switch mode {
	case client.MenuHost:
		if s.Last.HostPort < 1 || s.Last.HostPort > 65535 {
			return fmt.Errorf("port %d: give a port from 1 to 65535", s.Last.HostPort)
		}
		err = cli.Bots("bots", s.Last.HostBots, game.MaxBots)
	case client.MenuJoin:
		if err = cli.JoinAddr("join", s.Last.JoinAddr); err == nil && s.Name != "" {
			err = cli.Name("name", s.Name)
		}
	}
	var ue *cli.UsageError
	if errors.As(err, &ue) {
		return errors.New(ue.Msg)
	}
	return err
}
