package main

import (
	"image"
	"path/filepath"
	"testing"
	"time"
)

// groundShares returns, of the ground left of the player's tank (rows 45 to 65 % of
// the height, columns 2 to 40 % of the width: below the horizon, above the HUD),
// the shares of grass-green pixels and of sand pixels (red over green over blue,
// bright).
func groundShares(img *image.RGBA) (green, sand float64) {
	b := img.Bounds()
	n := 0
	for y := b.Dy() * 45 / 100; y < b.Dy()*65/100; y++ {
		for x := b.Dx() * 2 / 100; x < b.Dx()*40/100; x++ {
			c := img.RGBAAt(x, y)
			r, g, bl := int(c.R), int(c.G), int(c.B)
			switch {
			case g > r+10 && g > bl+10:
				green++
			case r > g+10 && g > bl+15 && r > 120:
				sand++
			}
			n++
		}
	}
	return green / float64(n), sand / float64(n)
}

// TestMapsLookTheirOwn: each shipped map draws in its own palette, from its sidecar:
// the valley's ground is green, the dunes' sand. Each is hosted from / (as in
// TestRunsFromAnywhere), where no assets lie beside the program: the map and its
// sidecar are the ones it carries.
func TestMapsLookTheirOwn(t *testing.T) {
	tanks, _ := buildTools(t)
	for _, tc := range []struct {
		name              string
		minGreen, minSand float64
		maxGreen, maxSand float64
	}{
		{"valley", 0.6, 0, 1, 0.05},
		{"dunes", 0, 0.6, 0.05, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			shot := filepath.Join(dir, tc.name+".png")
			p := startFrom(t, "/", tanks, "-host", "127.0.0.1:0", "-lan", "off", "-map", tc.name, "-identity", filepath.Join(dir, "id.pem"),
				"-screenshot", shot, "-frames", "3", "-size", "400x240")
			if code := p.wait(t, 90*time.Second); code != 0 {
				t.Fatalf("exit code %d", code)
			}
			green, sand := groundShares(readPNG(t, shot))
			if green < tc.minGreen || green > tc.maxGreen || sand < tc.minSand || sand > tc.maxSand {
				t.Errorf("ground %.0f %% green and %.0f %% sand, want green %.0f…%.0f %% and sand %.0f…%.0f %%",
					100*green, 100*sand, 100*tc.minGreen, 100*tc.maxGreen, 100*tc.minSand, 100*tc.maxSand)
			}
		})
	}
}
