package terrain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
)

// ErrInvalidMap reports a sidecar or heightmap that is malformed or inconsistent.
// Load, LoadFS, Decode and Generate wrap it; test with errors.Is.
var ErrInvalidMap = errors.New("invalid map")

// MaxSidecarBytes is the largest sidecar file Load accepts.
const MaxSidecarBytes = 4 << 20

// Sidecar is the JSON file that describes a map beside its heightmap PNG.
//
// Pixel (px, py) of the PNG is grid sample (i, j) = (px, py): the image's columns run
// along +X from Extent.MinX and its rows along +Z from Extent.MinZ (so the top of the
// image is the map's −Z edge). A 16-bit gray value v means height
// HeightBase + v·HeightScale/65535 meters.
type Sidecar struct {
	// Name names the map.
	Name string `json:"name"`
	// Heightmap is the PNG's file name, relative to the sidecar's directory.
	Heightmap string `json:"heightmap"`
	// Extent is the rectangle of the XZ plane the heightmap covers, m.
	Extent Extent `json:"extent"`
	// HeightBase is the height of gray value 0, m.
	HeightBase float64 `json:"heightBase"`
	// HeightScale is the height span of gray values 0…65535, m.
	HeightScale float64 `json:"heightScale"`
	// ChunkCells is the side of a render chunk in cells; 0 means DefaultChunkCells.
	ChunkCells int `json:"chunkCells,omitempty"`
	// Seed is the generator seed that made the map, if it was generated.
	Seed uint64 `json:"seed,omitempty"`
	// Rocks are the static obstacles.
	Rocks []Obstacle `json:"rocks"`
	// Spawns are the spawn points.
	Spawns []Spawn `json:"spawns"`
	// Landmarks are named places with headings (optional).
	Landmarks []Landmark `json:"landmarks,omitempty"`
	// Palette colours the ground (optional; DefaultPalette when absent).
	Palette *Palette `json:"palette,omitempty"`
}

// Extent is an axis-aligned rectangle of the XZ plane, m.
type Extent struct {
	// MinX and MinZ are the lowest corner, m.
	MinX float64 `json:"minX"`
	MinZ float64 `json:"minZ"`
	// MaxX and MaxZ are the highest corner, m.
	MaxX float64 `json:"maxX"`
	MaxZ float64 `json:"maxZ"`
}

// Spawn is a spawn point in a sidecar, m.
type Spawn struct {
	// X and Z locate the spawn point, m.
	X float64 `json:"x"`
	Z float64 `json:"z"`
}

// Load reads a map from its JSON sidecar file and the 16-bit grayscale PNG it names,
// which must sit in the same directory.
func Load(sidecarPath string) (*Map, error) {
	if _, err := os.Stat(sidecarPath); err != nil { // names the file as the caller did
		return nil, fmt.Errorf("load map: %w", err)
	}
	dir, name := filepath.Split(sidecarPath)
	if dir == "" {
		dir = "."
	}
	m, err := LoadFS(os.DirFS(dir), name)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", sidecarPath, err)
	}
	return m, nil
}

// LoadFS is Load reading from fsys, so maps can be embedded with embed.FS.
func LoadFS(fsys fs.FS, sidecarName string) (*Map, error) {
	sc, err := fs.ReadFile(fsys, sidecarName)
	if err != nil {
		return nil, fmt.Errorf("read sidecar: %w", err)
	}
	if len(sc) > MaxSidecarBytes {
		return nil, fmt.Errorf("%w: sidecar is %d bytes, at most %d", ErrInvalidMap, len(sc), MaxSidecarBytes)
	}
	var s Sidecar
	if err := decodeSidecar(sc, &s); err != nil {
		return nil, err
	}
	if s.Heightmap == "" || strings.ContainsAny(s.Heightmap, `/\`) || s.Heightmap == "." || s.Heightmap == ".." {
		return nil, fmt.Errorf("%w: heightmap %q must be a file name beside the sidecar", ErrInvalidMap, s.Heightmap)
	}
	f, err := fsys.Open(path.Join(path.Dir(sidecarName), s.Heightmap))
	if err != nil {
		return nil, fmt.Errorf("open heightmap: %w", err)
	}
	defer f.Close()
	return Decode(s, f)
}

func decodeSidecar(b []byte, s *Sidecar) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(s); err != nil {
		return fmt.Errorf("%w: decode sidecar: %v", ErrInvalidMap, err)
	}
	return nil
}

// Decode builds a map from a parsed sidecar and the heightmap PNG read from r. Any
// grayscale PNG is accepted; 16-bit grayscale keeps full precision.
func Decode(s Sidecar, r io.Reader) (*Map, error) {
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(r, 4*MaxSamples*MaxSamples+1<<20)); err != nil {
		return nil, fmt.Errorf("read heightmap: %w", err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(buf.Bytes()))
	if err != nil {
		return nil, fmt.Errorf("%w: heightmap: %v", ErrInvalidMap, err)
	}
	if cfg.Width < MinSamples || cfg.Height < MinSamples || cfg.Width > MaxSamples || cfg.Height > MaxSamples {
		return nil, fmt.Errorf("%w: heightmap is %d×%d, want %d…%d per side", ErrInvalidMap, cfg.Width, cfg.Height, MinSamples, MaxSamples)
	}
	img, err := png.Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		return nil, fmt.Errorf("%w: heightmap: %v", ErrInvalidMap, err)
	}
	b := img.Bounds()
	nx, nz := b.Dx(), b.Dy()
	raw := make([]uint16, nx*nz)
	if g, ok := img.(*image.Gray16); ok {
		for j := 0; j < nz; j++ {
			for i := 0; i < nx; i++ {
				raw[j*nx+i] = g.Gray16At(b.Min.X+i, b.Min.Y+j).Y
			}
		}
	} else {
		for j := 0; j < nz; j++ {
			for i := 0; i < nx; i++ {
				raw[j*nx+i] = color.Gray16Model.Convert(img.At(b.Min.X+i, b.Min.Y+j)).(color.Gray16).Y
			}
		}
	}
	l := layout{
		name: s.Name, nx: nx, nz: nz,
		minX: s.Extent.MinX, minZ: s.Extent.MinZ, maxX: s.Extent.MaxX, maxZ: s.Extent.MaxZ,
		heightBase: s.HeightBase, heightScale: s.HeightScale,
		chunkCells: s.ChunkCells, seed: s.Seed,
	}
	if l.chunkCells == 0 {
		l.chunkCells = DefaultChunkCells
	}
	spawns := make([]mgl64.Vec2, len(s.Spawns))
	for i, sp := range s.Spawns {
		spawns[i] = mgl64.Vec2{sp.X, sp.Z}
	}
	return newMap(l, raw, features{obstacles: s.Rocks, spawns: spawns, landmarks: s.Landmarks, palette: s.Palette})
}

// Sidecar returns the sidecar describing m, naming heightmap as its PNG.
func (m *Map) Sidecar(heightmap string) Sidecar {
	s := Sidecar{
		Name: m.name, Heightmap: heightmap,
		Extent:     Extent{MinX: m.minX, MinZ: m.minZ, MaxX: m.maxX, MaxZ: m.maxZ},
		HeightBase: m.heightBase, HeightScale: m.heightScale,
		ChunkCells: m.chunkCells, Seed: m.seed,
		Rocks:     append([]Obstacle{}, m.obstacles...),
		Spawns:    make([]Spawn, len(m.spawns)),
		Landmarks: append([]Landmark(nil), m.landmarks...),
	}
	for i, sp := range m.spawns {
		s.Spawns[i] = Spawn{X: sp[0], Z: sp[1]}
	}
	if m.palette != DefaultPalette() {
		p := m.palette
		s.Palette = &p
	}
	return s
}

// Heightmap returns the map's heights as a 16-bit grayscale image, as stored in its
// PNG (see Sidecar for the layout).
func (m *Map) Heightmap() *image.Gray16 {
	img := image.NewGray16(image.Rect(0, 0, m.nx, m.nz))
	for j := 0; j < m.nz; j++ {
		for i := 0; i < m.nx; i++ {
			img.SetGray16(i, j, color.Gray16{Y: m.raw[j*m.nx+i]})
		}
	}
	return img
}

// Encode writes the map's sidecar JSON (naming heightmap as its PNG) to sidecar and
// its heightmap PNG to img.
func (m *Map) Encode(sidecar, img io.Writer, heightmap string) error {
	b, err := json.MarshalIndent(m.Sidecar(heightmap), "", "  ")
	if err != nil {
		return fmt.Errorf("encode sidecar: %w", err)
	}
	if _, err := sidecar.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write sidecar: %w", err)
	}
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(img, m.Heightmap()); err != nil {
		return fmt.Errorf("encode heightmap: %w", err)
	}
	return nil
}

// Save writes the map as basePath+".png" (16-bit grayscale) and basePath+".json" (the
// sidecar). Loading the sidecar back gives an identical map.
func (m *Map) Save(basePath string) error {
	var sc, img bytes.Buffer
	pngName := filepath.Base(basePath) + ".png"
	if err := m.Encode(&sc, &img, pngName); err != nil {
		return err
	}
	if err := os.WriteFile(basePath+".png", img.Bytes(), 0o644); err != nil {
		return fmt.Errorf("save heightmap: %w", err)
	}
	if err := os.WriteFile(basePath+".json", sc.Bytes(), 0o644); err != nil {
		return fmt.Errorf("save sidecar: %w", err)
	}
	return nil
}
