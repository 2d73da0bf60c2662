package render

import (
	"fmt"
	"strings"

	"github.com/treadline/treadline/game"
)

// Overlay is a set of debug overlays, one bit each.
type Overlay uint8

const (
	// OverlayGhost draws each remote tank's last-known state and its projection to
	// now as footprints on the ground (yellow and cyan), wherever they differ from
	// the shown tank by more than 5 cm, joined by a line; the error line, from the
	// projection to the shown tank, runs above the turret roof.
	OverlayGhost Overlay = 1 << iota
	// OverlayTrail draws each tank's recent displayed path.
	OverlayTrail
	// OverlayClamp draws the three ground-clamp rays and the ground normal.
	OverlayClamp
	// OverlayMotion draws velocity (green) and acceleration (orange) arrows.
	OverlayMotion
	// OverlayLabels labels each remote tank with its update age and current error.
	OverlayLabels
	// OverlayHits draws, for the player's last hit claims, the target's hull as the
	// player's screen showed it, as the host rebuilt that view, and as it truly was.
	OverlayHits

	// OverlayAll is every overlay.
	OverlayAll = OverlayGhost | OverlayTrail | OverlayClamp | OverlayMotion | OverlayLabels | OverlayHits
)

var overlayNames = [...]struct {
	o    Overlay
	name string
}{
	{OverlayGhost, "ghost"},
	{OverlayTrail, "trail"},
	{OverlayClamp, "clamp"},
	{OverlayMotion, "motion"},
	{OverlayLabels, "labels"},
	{OverlayHits, "hits"},
}

// String returns the overlay names joined by commas, as ParseOverlays accepts them;
// the empty set is "".
func (o Overlay) String() string {
	var b strings.Builder
	for _, n := range overlayNames {
		if o&n.o != 0 {
			if b.Len() > 0 {
				b.WriteByte(',')
			}
			b.WriteString(n.name)
		}
	}
	return b.String()
}

// overlayChoices lists the names ParseOverlays takes, from overlayNames, so a new
// overlay is never left out of the error: "ghost, trail, …, hits or all".
func overlayChoices() string {
	var b strings.Builder
	for _, n := range overlayNames {
		b.WriteString(n.name)
		b.WriteString(", ")
	}
	return strings.TrimSuffix(b.String(), ", ") + " or all"
}

// ParseOverlays parses a comma-separated list of overlay names (ghost, trail, clamp,
// motion, labels, or all). Blanks around names are ignored; "" is the empty set.
func ParseOverlays(s string) (Overlay, error) {
	var o Overlay
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if f == "all" {
			o |= OverlayAll
			continue
		}
		found := false
		for _, n := range overlayNames {
			if n.name == f {
				o |= n.o
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("unknown overlay %q (want %s)", f, overlayChoices())
		}
	}
	return o, nil
}

// ViewDetail returns which of a match's costlier view fields the overlays in o read
// (game.Match.SetViewDetail): the last-known projection and error for the ghosts and
// the error labels, the trails for the trail overlay.
func (o Overlay) ViewDetail() game.ViewDetail {
	return game.ViewDetail{
		NoProjection: o&(OverlayGhost|OverlayLabels) == 0,
		NoTrails:     o&OverlayTrail == 0,
	}
}
