package client

import (
	"github.com/g3n/engine/window"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/render"
)

// TestSettingsPersist: settings saved in one run are read back in the next, exactly;
// a missing file gives the defaults; a damaged one gives the defaults and says why.
func TestSettingsPersist(t *testing.T) {
	path := filepath.Join(t.TempDir(), "treadline", "settings.json")
	s, err := LoadSettings(path)
	if err != nil || s.FOV != DefaultFOV || s.Volume != DefaultVolume || s.Keys["forward"] != "W" {
		t.Fatalf("first run: %+v, %v; want the defaults", s, err)
	}
	s.Name, s.Team, s.FOV, s.Quality, s.Volume, s.InvertMouse = "ann", 3, 85, "low", 0, true
	s.Keys["gun_up"] = "PageUp"
	s.Last = LastMatch{HostPort: 9000, HostPass: "pw", HostBots: 9, JoinAddr: "h:1", JoinPass: "x", JoinVia: "lan"}
	s.Lists = "https://list.example,https://other.example:8443"
	if err := s.Save(path); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("settings file mode %v, want 0600 (it may hold passphrases)", st.Mode().Perm())
	}
	back, err := LoadSettings(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Name != "ann" || back.Team != 3 || back.FOV != 85 || back.Quality != "low" || back.Volume != 0 ||
		!back.InvertMouse || back.Keys["gun_up"] != "PageUp" || back.Last != s.Last || back.Lists != s.Lists {
		t.Errorf("read back %+v\nsaved     %+v", back, s)
	}
	if back.LODDistance() != 60 {
		t.Errorf("low quality LOD step %v, want 60 m", back.LODDistance())
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if d, err := LoadSettings(path); err == nil || !strings.Contains(err.Error(), path) || d.FOV != DefaultFOV {
		t.Errorf("damaged file: %v (FOV %v); want the defaults and an error naming the file", err, d.FOV)
	}
}

// TestSettingsNormalize: out-of-range and nonsense values come back in range, and
// keys bound twice, to fixed keys or to no key at all fall back to their defaults.
func TestSettingsNormalize(t *testing.T) {
	s := Settings{MouseSensitivity: 99, FOV: math.NaN(), Quality: "ultra", Volume: 7, Team: -1,
		Keys:  map[string]string{"forward": "X", "back": "Nope", "left": "K", "right": "K"},
		Lists: " https://l.example\xff" + strings.Repeat("é", MaxListsLen)}
	s.Normalize()
	if s.MouseSensitivity != 5 || s.FOV != DefaultFOV || s.Quality != DefaultQuality || s.Volume != 1 || s.Team != 3 {
		t.Errorf("normalized %+v", s)
	}
	if len(s.Lists) > MaxListsLen || !utf8.ValidString(s.Lists) || !strings.HasPrefix(s.Lists, "https://l.exampleé") {
		t.Errorf("lists normalized to %d bytes %q…, want at most %d of valid text, trimmed", len(s.Lists), s.Lists[:min(30, len(s.Lists))], MaxListsLen)
	}
	// X toggles the clamp overlay: a fixed key. K is bound twice: the second falls back.
	if s.Keys["forward"] != "W" || s.Keys["back"] != "S" || s.Keys["left"] != "K" || s.Keys["right"] != "D" {
		t.Errorf("keys %v", s.Keys)
	}
	if len(s.Keys) != len(Actions) {
		t.Errorf("%d keys for %d actions", len(s.Keys), len(Actions))
	}
}

// TestQualityChoosesDetail: low quality leaves out each tank's shadow patch (one
// draw call per tank on a software renderer) and steps the terrain's detail every
// 60 m; medium and high keep the shadows and step every 120 and 240 m.
func TestQualityChoosesDetail(t *testing.T) {
	for _, c := range []struct {
		quality string
		shadows bool
		lod     float64
	}{
		{"low", false, 60}, {"medium", true, render.DefaultLODDistance}, {"high", true, 240},
	} {
		s := DefaultSettings()
		s.Quality = c.quality
		if s.Shadows() != c.shadows || s.LODDistance() != c.lod {
			t.Errorf("quality %s: shadows %v, LOD step %v m; want %v, %v m", c.quality, s.Shadows(), s.LODDistance(), c.shadows, c.lod)
		}
	}
}

// TestSettingsNameDefault checks that Settings → Name shows the name the match calls
// a player who never chose one, not a blank field, and that typing a name replaces
// it rather than adding to it.
func TestSettingsNameDefault(t *testing.T) {
	set := DefaultSettings()
	m := &menu{}
	m.push(settingsScreen(m, &set, func() {}))
	name := -1
	for i, it := range m.top().items {
		if it.label == "Name" {
			name = i
		}
	}
	if name < 0 {
		t.Fatal("no Name item in Settings")
	}
	if v := m.page().Items[name][1]; v != game.DefaultName {
		t.Errorf("Settings → Name shows %q, want %q", v, game.DefaultName)
	}
	m.top().sel = name
	m.key(window.KeyEnter)
	for _, r := range "ann" {
		m.char(r)
	}
	m.key(window.KeyEnter)
	if set.Name != "ann" || m.page().Items[name][1] != "ann" {
		t.Errorf("typed ann: name %q shown %q, want ann", set.Name, m.page().Items[name][1])
	}
}

// TestRebindPromptFits starts rebinding the turret's left key: the row shows a short
// prompt no wider than the longest action name, and the hint says Esc keeps Q.
func TestRebindPromptFits(t *testing.T) {
	set := DefaultSettings()
	m := &menu{}
	m.push(keysScreen(&set, func() {}))
	sel := -1
	for i, it := range m.top().items {
		if it.kind == itemKey && it.value() == "Q" {
			sel = i
		}
	}
	if sel < 0 {
		t.Fatal("no key item bound to Q")
	}
	m.top().sel = sel
	m.key(window.KeyEnter)
	p := m.page()
	longest := 0
	for _, a := range Actions {
		longest = max(longest, utf8.RuneCountInString(a.What))
	}
	if v := p.Items[sel][1]; utf8.RuneCountInString(v) > longest {
		t.Errorf("rebinding prompt %q is longer than the longest action name (%d characters)", v, longest)
	}
	if !strings.Contains(p.Hint, "Esc keeps Q") {
		t.Errorf("hint while rebinding %q, want it to say Esc keeps Q", p.Hint)
	}
}
