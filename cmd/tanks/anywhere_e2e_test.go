package main

import (
	"path/filepath"
	"testing"
	"time"
)

// TestRunsFromAnywhere: the programs carry their maps, so they run from a directory
// with no assets beside them (here /): a practice match and a headless host on the
// second map. TestMapsLookTheirOwn hosts a match on each map from / too.
func TestRunsFromAnywhere(t *testing.T) {
	tanks, tankhost := buildTools(t)
	dir := t.TempDir()
	for _, c := range []struct {
		name, shot string
		args       []string
	}{
		{"practice", "practice.png", []string{"-bots", "0"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			shot := filepath.Join(dir, c.shot)
			p := startFrom(t, "/", tanks, append(c.args, "-screenshot", shot, "-frames", "2", "-size", "640x360")...)
			if code := p.wait(t, 90*time.Second); code != 0 {
				t.Fatalf("tanks %q from /: exit code %d", c.args, code)
			}
			if b := readPNG(t, shot).Bounds(); b.Dx() != 640 || b.Dy() != 360 {
				t.Errorf("screenshot %v, want 640x360", b)
			}
		})
	}
	t.Run("tankhost", func(t *testing.T) {
		host := startFrom(t, "/", tankhost, "-listen", "127.0.0.1:0", "-bots", "1", "-map", "dunes",
			"-identity", filepath.Join(dir, "host.pem"))
		host.waitLine(t, listenRE, 30*time.Second)
	})
}
