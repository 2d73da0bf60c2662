package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/g3n/engine/window"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/render"
)

// Settings are the player's preferences, kept as JSON in the user's config directory
// (DefaultSettingsPath) between runs. The zero value of a field means its default;
// Normalize fills defaults and brings every value into its range.
type Settings struct {
	// MouseSensitivity scales camera orbiting by mouse drag, 0.1..5 (1: 0.006 rad per
	// pixel).
	MouseSensitivity float64 `json:"mouse_sensitivity"`
	// InvertMouse makes moving the mouse up tilt the camera down.
	InvertMouse bool `json:"invert_mouse"`
	// KeyAim aims with the keys (turret left and right, gun up and down, each
	// moving only while held) instead of the mouse (the camera turns with the
	// mouse, the turret and gun follow where it looks).
	KeyAim bool `json:"key_aim"`
	// FOV is the vertical field of view, degrees, 40..100.
	FOV float64 `json:"fov_degrees"`
	// Quality is the graphics quality: "low", "medium" or "high": the terrain's level of
	// detail steps every 60, 120 or 240 m, and "low" leaves out the tanks' shadows.
	Quality string `json:"graphics_quality"`
	// Volume is the master volume, 0..1; Mute silences the game whatever Volume says.
	Volume float64 `json:"volume"`
	Mute   bool    `json:"mute"`
	// Keys binds each driving and aiming action (see Actions) to a key, by name ("W",
	// "Up", "Space", "F5"…).
	Keys map[string]string `json:"keys"`
	// Name is the player's name (if empty, the match calls the player
	// game.DefaultName, and the menus show that); Team picks the tank's colour (0 red, 1 blue, 2
	// yellow, 3 green).
	Name string `json:"name"`
	Team int    `json:"team"`
	// Last holds what the main menu's Host and Join screens were given last time.
	Last LastMatch `json:"last"`
	// Record records every match into DefaultRecordDir, one file each (tanks -replay
	// plays them; drlab -replay measures them).
	Record bool `json:"record_matches"`
	// Lists are the list servers the Join menu (and tanks -list) reads matches from:
	// comma-separated URLs, https://HOST[:PORT][#FINGERPRINT], as -lists takes them;
	// at most MaxListsLen bytes. Empty: none.
	Lists string `json:"lists"`
}

// MaxListsLen bounds Settings.Lists, bytes.
const MaxListsLen = 1000

// LastMatch is what the menu remembers of the last hosted and joined matches.
type LastMatch struct {
	HostPort int    `json:"host_port"`
	HostPass string `json:"host_pass"`
	HostBots int    `json:"host_bots"`
	JoinAddr string `json:"join_addr"`
	JoinPass string `json:"join_pass"`
	// JoinVia is where the Join menu found the match joined last: "lan" for the
	// local network, a list server's URL, or "" for an address typed in. A match
	// found on the local network has its fingerprint remembered in the known hosts.
	JoinVia string `json:"join_via"`
	// JoinObserve joins as an observer: no tank, a free or follow camera (the Join
	// menu's "Join as" row, tanks -observe).
	JoinObserve bool `json:"join_observe"`
	// JoinName is the name of the match found and joined last, for the connecting
	// screen; not saved.
	JoinName string `json:"-"`
}

// Defaults of Settings.
const (
	DefaultMouseSensitivity = 1.0
	DefaultFOV              = 60.0
	DefaultQuality          = "medium"
	DefaultVolume           = 0.8
	DefaultHostPort         = 7777
	DefaultHostBots         = 4
)

// Actions are the rebindable actions, in menu order, with their default keys.
var Actions = []struct{ Name, What, Key string }{
	{"forward", "throttle ahead", "W"},
	{"back", "throttle reverse", "S"},
	{"left", "steer left", "A"},
	{"right", "steer right", "D"},
	{"turret_left", "turret left", "Q"},
	{"turret_right", "turret right", "E"},
	{"gun_up", "gun up", "R"},
	{"gun_down", "gun down", "F"},
}

// qualityLOD maps a quality to its terrain level-of-detail step, m.
var qualityLOD = map[string]float64{"low": 60, "medium": render.DefaultLODDistance, "high": 240}

// Qualities lists the graphics qualities, lowest first.
var Qualities = []string{"low", "medium", "high"}

// LODDistance returns the terrain level-of-detail step of s's quality, m.
func (s Settings) LODDistance() float64 { return qualityLOD[s.Quality] }

// Shadows reports whether s's quality draws the tanks' shadows.
func (s Settings) Shadows() bool { return s.Quality != "low" }

// DefaultSettingsPath returns the settings file in the user's config directory, or ""
// when there is none.
func DefaultSettingsPath() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "treadline", "settings.json")
}

// DefaultRecordDir returns the directory matches are recorded into when
// Settings.Record is on: recordings beside the settings file, or "" when there is no
// config directory.
func DefaultRecordDir() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "treadline", "recordings")
}

// Normalize fills zero fields with their defaults and brings every value into range;
// unknown key names and actions are dropped for their defaults.
func (s *Settings) Normalize() {
	clamp := func(v *float64, def, lo, hi float64) {
		if *v == 0 || math.IsNaN(*v) {
			*v = def
		}
		*v = math.Max(lo, math.Min(hi, *v))
	}
	clamp(&s.MouseSensitivity, DefaultMouseSensitivity, 0.1, 5)
	clamp(&s.FOV, DefaultFOV, 40, 100)
	if math.IsNaN(s.Volume) {
		s.Volume = DefaultVolume
	}
	s.Volume = math.Max(0, math.Min(1, s.Volume))
	if _, ok := qualityLOD[s.Quality]; !ok {
		s.Quality = DefaultQuality
	}
	keys := map[string]string{}
	used := map[window.Key]bool{}
	for _, a := range Actions {
		k, ok := keyByName(s.Keys[a.Name])
		if !ok || used[k] || fixedKey(k) {
			k, _ = keyByName(a.Key)
		}
		used[k] = true
		keys[a.Name] = keyName(k)
	}
	s.Keys = keys
	s.Team = render.TeamColorIndex(s.Team)
	for len(s.Name) > wire.MaxNameLen { // cut whole characters only
		_, n := utf8.DecodeLastRuneInString(s.Name)
		s.Name = s.Name[:len(s.Name)-n]
	}

	s.Lists = strings.TrimSpace(strings.ToValidUTF8(s.Lists, ""))
	for len(s.Lists) > MaxListsLen {
		_, n := utf8.DecodeLastRuneInString(s.Lists)
		s.Lists = s.Lists[:len(s.Lists)-n]
	}
	if s.Last.HostPort <= 0 || s.Last.HostPort > 65535 {
		s.Last.HostPort = DefaultHostPort
	}
	if s.Last.HostBots < 0 || s.Last.HostBots > game.MaxBots {
		s.Last.HostBots = DefaultHostBots
	}
}

// settingsOr returns *s normalized, or the defaults when s is nil.
func settingsOr(s *Settings) Settings {
	if s == nil {
		return DefaultSettings()
	}
	set := *s
	set.Normalize()
	return set
}

// DefaultSettings returns the settings of a first run.
func DefaultSettings() Settings {
	s := Settings{Volume: DefaultVolume, Last: LastMatch{HostBots: DefaultHostBots}}
	s.Normalize()
	return s
}

// LoadSettings reads the settings at path. A missing file gives the defaults and no
// error; a damaged one gives the defaults and an error saying why (the caller says
// so and plays on; the next Save replaces the file).
func LoadSettings(path string) (Settings, error) {
	s := DefaultSettings()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("settings: %w", err)
	}
	var read Settings
	if err := json.Unmarshal(b, &read); err != nil {
		return s, fmt.Errorf("settings %s: %w (using the defaults)", path, err)
	}
	if !strings.Contains(string(b), `"volume"`) {
		read.Volume = DefaultVolume // an absent volume is the default, an explicit 0 is silence
	}
	read.Normalize()
	return read, nil
}

// Save writes s to path as indented JSON, readable by the user alone (it may hold
// passphrases), creating the directory.
func (s Settings) Save(path string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	return nil
}

// controls is the key of each held action, resolved from Settings.Keys.
type controls struct {
	forward, back, left, right, turretLeft, turretRight, gunUp, gunDown window.Key
}

// controlsOf resolves s's bindings (s normalized).
func controlsOf(s Settings) controls {
	k := func(action string) window.Key {
		key, _ := keyByName(s.Keys[action])
		return key
	}
	return controls{forward: k("forward"), back: k("back"), left: k("left"), right: k("right"),
		turretLeft: k("turret_left"), turretRight: k("turret_right"), gunUp: k("gun_up"), gunDown: k("gun_down")}
}

// fixedKey reports whether k already does something that cannot be rebound (a
// command in the help's list, the arrows, Esc, Enter).
func fixedKey(k window.Key) bool {
	switch k {
	case window.KeyUp, window.KeyDown, window.KeyLeft, window.KeyRight, window.KeyEnter, window.KeyKPEnter, window.KeyTab:
		return true
	}
	_, ok := bindingFor(k)
	return ok
}

// keyNames names the keys a player can bind.
var keyNames = func() map[window.Key]string {
	m := map[window.Key]string{
		window.KeyUp: "Up", window.KeyDown: "Down", window.KeyLeft: "Left", window.KeyRight: "Right",
		window.KeySpace: "Space", window.KeyTab: "Tab", window.KeyEnter: "Enter", window.KeyBackspace: "Backspace",
		window.KeyHome: "Home", window.KeyEnd: "End", window.KeyPageUp: "PageUp", window.KeyPageDown: "PageDown",
		window.KeyInsert: "Insert", window.KeyDelete: "Delete", window.KeyKPEnter: "KPEnter",
		window.KeyLeftShift: "LeftShift", window.KeyRightShift: "RightShift",
		window.KeyLeftControl: "LeftControl", window.KeyRightControl: "RightControl",
		window.KeyLeftAlt: "LeftAlt", window.KeyRightAlt: "RightAlt",
		window.KeyComma: "Comma", window.KeyPeriod: "Period", window.KeySlash: "Slash",
		window.KeySemicolon: "Semicolon", window.KeyMinus: "Minus", window.KeyEqual: "Equal",
	}
	for c := 'A'; c <= 'Z'; c++ {
		m[window.KeyA+window.Key(c-'A')] = string(c)
	}
	for c := '0'; c <= '9'; c++ {
		m[window.Key0+window.Key(c-'0')] = string(c)
	}
	for i := 0; i < 12; i++ {
		m[window.KeyF1+window.Key(i)] = fmt.Sprintf("F%d", i+1)
	}
	for i := 0; i < 10; i++ {
		m[window.KeyKP0+window.Key(i)] = fmt.Sprintf("KP%d", i)
	}
	return m
}()

// keyName returns k's name, or "" for a key that cannot be bound.
func keyName(k window.Key) string { return keyNames[k] }

// keyByName returns the key called name (case-insensitive).
func keyByName(name string) (window.Key, bool) {
	for k, n := range keyNames {
		if strings.EqualFold(n, name) {
			return k, true
		}
	}
	return 0, false
}
