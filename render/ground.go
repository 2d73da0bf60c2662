package render

import (
	"image"
	"math"

	"github.com/g3n/engine/gls"
	"github.com/g3n/engine/texture"
)

// The ground is drawn with one small procedural detail texture: each of its four
// channels is the pattern of one ground material (terrain.LayerGrass, LayerDirt,
// LayerRock, LayerSnow): blades and tufts, clods, strata and cracks, soft drifts. The
// ground shader weighs the channels by each vertex's material mix, from one texture
// sample per pixel (software rendering pays for every sample); its mipmaps keep the
// pattern calm in the distance, where the vertex colours' variation and the lighting
// carry the ground.
const (
	// detailSize is the side of the detail texture in texels (a power of two: it tiles
	// and has mipmaps).
	detailSize = 256
	// detailTile is the ground length in meters one tile of the texture covers.
	detailTile = 7.0
)

// newDetailTexture builds the ground's tiling detail texture.
func newDetailTexture() *texture.Texture2D {
	tex := texture.NewTexture2DFromRGBA(detailImage(detailSize))
	tex.SetWrapS(gls.REPEAT)
	tex.SetWrapT(gls.REPEAT)
	// One texel of one mip level per sample where the ground is minified (most of
	// the picture): a fifth of trilinear filtering's cost in software rendering, and
	// the pattern is noise anyway. Up close it is magnified smoothly.
	tex.SetMinFilter(gls.NEAREST_MIPMAP_NEAREST)
	tex.SetFlipY(false)
	return tex
}

// detailImage returns the n×n detail pattern (n a power of two): R grass, G dirt,
// B rock, A snow, each stretched to use the whole 0…255 range. It tiles seamlessly.
func detailImage(n int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, n, n))
	ch := [4][]float64{}
	for c := range ch {
		ch[c] = make([]float64, n*n)
	}
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			u, v := float64(x)/float64(n), float64(y)/float64(n)
			k := y*n + x
			// Grass: fine blades over tufts.
			ch[0][k] = 0.45*tileNoise(u, v, 64, 1) + 0.35*tileNoise(u, v, 32, 2) + 0.2*tileNoise(u, v, 8, 3)
			// Dirt: clods and pebbles.
			clod := tileNoise(u, v, 16, 4)
			ch[1][k] = 0.55*clod*clod + 0.3*tileNoise(u, v, 48, 5) + 0.15*tileNoise(u, v, 128, 6)
			// Rock: wavy strata with cracks.
			warp := tileNoise(u, v, 4, 7) + 0.5*tileNoise(u, v, 8, 8)
			strata := 0.5 + 0.5*math.Sin(2*math.Pi*(6*v+1.5*warp))
			crack := math.Abs(tileNoise(u, v, 24, 9) - 0.5)
			ch[2][k] = 0.55*strata + 0.45*math.Min(1, 4*crack)
			// Snow: soft, low-contrast drifts.
			ch[3][k] = 0.7*tileNoise(u, v, 8, 10) + 0.3*tileNoise(u, v, 32, 11)
		}
	}
	for c := range ch {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, x := range ch[c] {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
		for k, x := range ch[c] {
			img.Pix[4*k+c] = uint8(math.Round(255 * (x - lo) / math.Max(hi-lo, 1e-9)))
		}
	}
	return img
}

// tileNoise is smooth value noise at (u, v) in the unit square with period cells
// along each side, so it tiles; seed picks the pattern. It returns values in [0, 1].
func tileNoise(u, v float64, period int, seed uint32) float64 {
	x, y := u*float64(period), v*float64(period)
	x0, y0 := int(math.Floor(x)), int(math.Floor(y))
	fx, fy := x-float64(x0), y-float64(y0)
	sx, sy := fx*fx*(3-2*fx), fy*fy*(3-2*fy)
	at := func(i, j int) float64 {
		i, j = ((i%period)+period)%period, ((j%period)+period)%period
		return lattice(uint32(i), uint32(j), seed)
	}
	a := at(x0, y0) + sx*(at(x0+1, y0)-at(x0, y0))
	b := at(x0, y0+1) + sx*(at(x0+1, y0+1)-at(x0, y0+1))
	return a + sy*(b-a)
}

// lattice is a hash of (i, j, seed) to [0, 1].
func lattice(i, j, seed uint32) float64 {
	h := i*0x9E3779B1 ^ j*0x85EBCA77 ^ seed*0xC2B2AE3D
	h ^= h >> 15
	h *= 0x2C1B3C6D
	h ^= h >> 12
	h *= 0x297A2D39
	h ^= h >> 15
	return float64(h&0xffffff) / 0xffffff
}
