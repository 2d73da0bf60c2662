package render

import (
	"image"

	"github.com/g3n/engine/math32"
)

// legendRow is one line of the overlay legend: a colour swatch and what it means.
type legendRow struct {
	overlay Overlay
	color   math32.Color
	line    bool // a line swatch rather than a block
	what    string
}

// legendRows lists what every overlay draws, in the order the legend shows them.
func legendRows() []legendRow {
	return []legendRow{
		{OverlayGhost, lastKnownColor, true, "footprint: last known state (as received)"},
		{OverlayGhost, projectionColor, true, "footprint: last known projected to now"},
		{OverlayGhost, ghostLinkColor, true, "last known → projection, on the ground"},
		{OverlayGhost, errorColor, true, "projection → shown tank (error), above it"},
		{OverlayTrail, math32.Color{R: 0.85, G: 0.75, B: 0.7}, true, "path shown (team tint)"},
		{OverlayClamp, rayColor, true, "clamp rays and contact triangle"},
		{OverlayClamp, normalColor, true, "ground normal"},
		{OverlayMotion, velocityColor, true, "velocity (m/s as m)"},
		{OverlayMotion, accelColor, true, "acceleration ×2"},
		{OverlayLabels, math32.Color{R: 1, G: 0.95, B: 0.6}, false, "update age and error labels"},
	}
}

// legendImage draws the legend for overlays o at font size size (points), or
// returns nil when o is empty.
func legendImage(o Overlay, size float64) *image.RGBA {
	var rows []legendRow
	for _, r := range legendRows() {
		if o&r.overlay != 0 {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	f := hudFont(size, math32.Color4{R: 1, G: 1, B: 1, A: 1})
	_, lineH := f.MeasureText("Mg")
	title := "Overlays"
	textW, _ := f.MeasureText(title)
	for _, r := range rows {
		w, _ := f.MeasureText(r.what)
		textW = max(textW, w)
	}
	pad, swatch, gap := lineH/2, 2*lineH, lineH/2
	img := image.NewRGBA(image.Rect(0, 0, 2*pad+swatch+gap+textW, 2*pad+lineH*(len(rows)+1)))
	fillRect(img, img.Bounds(), rgba8(panelBg, 1))
	f.SetColor(&math32.Color4{R: 1, G: 0.9, B: 0.55, A: 1})
	f.DrawTextOnImage(title, pad, pad, img)
	f.SetColor(&math32.Color4{R: 1, G: 1, B: 1, A: 1})
	for i, r := range rows {
		y := pad + (i+1)*lineH
		c := rgba8(r.color, 1)
		if r.line {
			th := max(2, lineH/7)
			fillRect(img, image.Rect(pad, y+lineH/2-th/2, pad+swatch, y+lineH/2-th/2+th), c)
		} else {
			fillRect(img, image.Rect(pad, y+lineH/5, pad+swatch, y+lineH-lineH/5), c)
		}
		f.DrawTextOnImage(r.what, pad+swatch+gap, y, img)
	}
	return img
}
