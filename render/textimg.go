package render

import (
	"image"
	imgcolor "image/color"
	"image/draw"
	"math"

	"github.com/g3n/engine/gls"
	"github.com/g3n/engine/gui"
	"github.com/g3n/engine/material"
	"github.com/g3n/engine/math32"
	"github.com/g3n/engine/text"
	"github.com/g3n/engine/texture"
)

// Some HUD panels are drawn once into an image and shown as one opaque panel: the
// help, the legend. An opaque panel is drawn before the 3D scene and hides what lies
// under it from the rasteriser, so showing it costs almost nothing, where a stack of
// translucent text panels over the scene costs milliseconds of software rendering.

// hudFont returns the GUI's default font set to size points and colour c. It is
// shared with every label: use it from the window's goroutine only.
func hudFont(size float64, c math32.Color4) *text.Font {
	f := gui.StyleDefault().Font
	fa := gui.StyleDefault().Label.FontAttributes
	fa.PointSize = size
	f.SetAttributes(&fa)
	f.SetColor(&c)
	return f
}

// rgba8 converts a colour with components in [0, 1] to 8-bit RGBA.
func rgba8(c math32.Color, a float32) imgcolor.RGBA {
	to := func(v float32) uint8 { return uint8(math.Round(float64(max(0, min(1, v)) * 255))) }
	return imgcolor.RGBA{R: to(c.R), G: to(c.G), B: to(c.B), A: to(a)}
}

// fillRect fills r of img with c.
func fillRect(img *image.RGBA, r image.Rectangle, c imgcolor.RGBA) {
	draw.Draw(img, r.Intersect(img.Bounds()), image.NewUniform(c), image.Point{}, draw.Src)
}

// columnsImage draws rows of text cells in aligned columns, with pad pixels of
// margin and gap pixels between columns, on an opaque panel-coloured image. The
// first row is drawn in the heading colour.
func columnsImage(rows [][]string, size float64, pad, gap int) *image.RGBA {
	ncols := 0
	for _, r := range rows {
		ncols = max(ncols, len(r))
	}
	f := hudFont(size, math32.Color4{R: 1, G: 1, B: 1, A: 1})
	_, lineH := f.MeasureText("Mg")
	widths := make([]int, ncols)
	for _, r := range rows {
		for c, cell := range r {
			w, _ := f.MeasureText(cell)
			widths[c] = max(widths[c], w)
		}
	}
	total := 2 * pad
	for c, w := range widths {
		total += w
		if c > 0 {
			total += gap
		}
	}
	img := image.NewRGBA(image.Rect(0, 0, total, 2*pad+lineH*len(rows)))
	fillRect(img, img.Bounds(), rgba8(panelBg, 1))
	heading := math32.Color4{R: 1, G: 0.9, B: 0.55, A: 1}
	white := math32.Color4{R: 1, G: 1, B: 1, A: 1}
	for ri, r := range rows {
		c4 := white
		if ri == 0 {
			c4 = heading
		}
		f.SetColor(&c4)
		x := pad
		for c, cell := range r {
			f.DrawTextOnImage(cell, x, pad+ri*lineH, img)
			x += widths[c] + gap
		}
	}
	return img
}

// opaque marks panel p as opaque, so the renderer draws it first and skips what it
// hides.
func opaque(p gui.IPanel) {
	p.GetPanel().Material().SetTransparent(false)
}

// imagePanel returns an opaque panel showing img pixel for pixel, or, given an old
// one, shows img in it instead of what it showed. It is drawn with imageShader and
// nearest-texel sampling, exact at one texel per pixel and the cheapest a software
// renderer can do.
func imagePanel(old *gui.Image, img *image.RGBA) *gui.Image {
	tex := texture.NewTexture2DFromRGBA(img)
	tex.SetMinFilter(gls.NEAREST)
	tex.SetMagFilter(gls.NEAREST)
	p := old
	if p == nil {
		p = gui.NewImageFromTex(tex)
		opaque(p)
		p.Material().SetShader(imageShader)
	} else {
		p.SetTexture(tex).Dispose()
	}
	p.SetSize(float32(img.Bounds().Dx()), float32(img.Bounds().Dy()))
	return p
}

// pixelMaterial is a panel's material that gives the panel's one texture new pixels
// itself, level 0 only. g3n's Texture2D makes the texture's mipmaps at every upload
// and has no setting to leave them off; a texture drawn texel for texel with nearest
// sampling (a label, the minimap) never reads them, and on a software renderer making
// them took a third of the CPU of a test redrawing the HUD every frame. The texture's
// first upload is g3n's.
type pixelMaterial struct {
	*material.Material
	w, h    int32
	pix     any
	pending bool
}

// newPixelMaterial puts a pixelMaterial in place of panel p's material and returns it.
// p's texture, when it has one, must sample with NEAREST or LINEAR minification: the
// levels past 0 keep the pixels of the first upload.
func newPixelMaterial(p *gui.Panel) *pixelMaterial {
	m := &pixelMaterial{Material: p.Material()}
	g := p.GetGraphic()
	igr := g.Materials()[0].IGraphic()
	g.ClearMaterials()
	g.AddMaterial(igr, m, 0, 0)
	return m
}

// RenderSetup sets the material up as g3n's does, which binds the panel's texture to
// the active unit, then sends the texture the pixels given since the last draw.
func (m *pixelMaterial) RenderSetup(gs *gls.GLS) {
	m.Material.RenderSetup(gs)
	if m.pending && m.TextureCount() == 1 {
		gs.TexImage2D(gls.TEXTURE_2D, 0, gls.RGBA8, m.w, m.h, gls.RGBA, gls.UNSIGNED_BYTE, m.pix)
	}
	m.pending = false
}

// setPixels gives the panel's texture a w×h RGBA image from pix, a []byte of at least
// 4·w·h bytes put in an interface by the caller once (texture.SetFromRGBA puts the
// image's pixels in one at every call, an allocation for each upload), at the panel's
// next draw.
func (m *pixelMaterial) setPixels(w, h int, pix any) {
	m.w, m.h, m.pix, m.pending = int32(w), int32(h), pix, true
}

// drop forgets the pixels given since the last draw, for when the texture is given
// new ones its own way (g3n's upload, with mipmaps, before the material's).
func (m *pixelMaterial) drop() { m.pending, m.pix = false, nil }
