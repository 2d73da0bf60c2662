// Command image builds the tankhost container image without a container engine: one
// layer holding a static tankhost binary, the maps and an empty home directory owned by
// the user it runs as, on an empty base. The tar file it writes is at once an OCI image
// layout (index.json, blobs/: what umoci, skopeo's oci-archive and `crane push DIR`
// read) and a docker-archive (manifest.json naming the same blobs: what `docker load`,
// old and new, and `podman load` read). It holds the files and configuration of the
// image the Dockerfile builds, and is reproducible byte for byte: every timestamp is
// SOURCE_DATE_EPOCH (0 when unset).
//
//	CGO_ENABLED=0 go build -trimpath -o tankhost ./cmd/tankhost
//	go run ./deploy/image -binary tankhost -maps assets/maps -tag treadline/tankhost:dev -o tankhost-image.tar
//
// scripts/image does both.
package main

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Where things go in the image, and how it runs. The Dockerfile says the same.
const (
	// Entrypoint is the binary's path in the image.
	Entrypoint = "/tankhost"
	// MapsDir is where the maps go; tankhost's default -map is relative to WorkDir.
	MapsDir = "/assets/maps"
	// WorkDir is the working directory.
	WorkDir = "/"
	// User runs tankhost: an unprivileged uid:gid with no entry in /etc/passwd.
	User = "65532:65532"
	// Home is the user's home directory (HOME), owned by User and empty: where a
	// tankhost run without -agones keeps its identity, under .config/treadline (mount
	// a volume here to keep it across containers). A game server (-agones) needs none.
	Home = "/home/tankhost"
	// GamePort and MetricsPort are the ports the image documents.
	GamePort    = "7777/udp"
	MetricsPort = "9100/tcp"
)

// spec is what goes into the image.
type spec struct {
	binary  string    // the static tankhost binary
	maps    string    // directory of map files
	tag     string    // image name, repository:tag
	arch    string    // GOARCH the binary is built for
	created time.Time // every timestamp in the image
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("image: ")
	var s spec
	var out string
	flag.StringVar(&s.binary, "binary", "", "static tankhost `binary` (CGO_ENABLED=0)")
	flag.StringVar(&s.maps, "maps", "assets/maps", "`directory` of maps to put at "+MapsDir)
	flag.StringVar(&s.tag, "tag", "treadline/tankhost:dev", "image `name`, repository:tag")
	flag.StringVar(&s.arch, "arch", runtime.GOARCH, "GOARCH the binary was built for")
	flag.StringVar(&out, "o", "tankhost-image.tar", "OCI image layout tar `file` to write")
	flag.Parse()
	if s.binary == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	epoch, err := sourceDateEpoch(os.Getenv("SOURCE_DATE_EPOCH"))
	if err != nil {
		log.Fatal(err)
	}
	s.created = epoch
	digest, err := build(s, out)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %s %s\n", out, s.tag, digest)
}

// sourceDateEpoch parses SOURCE_DATE_EPOCH (seconds since 1970); empty means 0.
func sourceDateEpoch(v string) (time.Time, error) {
	if v == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q: not a count of seconds", v)
	}
	return time.Unix(n, 0).UTC(), nil
}

// build writes the image of s to out as an OCI layout tar and returns its manifest
// digest.
func build(s spec, out string) (v1.Hash, error) {
	layerTar, err := layerOf(s)
	if err != nil {
		return v1.Hash{}, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return v1.Hash{}, fmt.Errorf("layer: %w", err)
	}
	base := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	base = mutate.ConfigMediaType(base, types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{Layer: layer, MediaType: types.OCILayer,
		History: v1.History{Created: v1.Time{Time: s.created}, CreatedBy: "scripts/image: tankhost and maps"}})
	if err != nil {
		return v1.Hash{}, fmt.Errorf("image: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return v1.Hash{}, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", s.arch
	cf.Created = v1.Time{Time: s.created}
	cf.Config.Entrypoint = []string{Entrypoint}
	cf.Config.Cmd = []string{"-listen", ":" + strings.TrimSuffix(GamePort, "/udp")}
	cf.Config.WorkingDir = WorkDir
	cf.Config.User = User
	cf.Config.Env = []string{"HOME=" + Home}
	cf.Config.ExposedPorts = map[string]struct{}{GamePort: {}, MetricsPort: {}}
	cf.Config.Labels = map[string]string{
		"org.opencontainers.image.title":       "tankhost",
		"org.opencontainers.image.description": "Treadline's headless QUIC match host",
		"org.opencontainers.image.licenses":    "MIT",
	}
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		return v1.Hash{}, fmt.Errorf("config: %w", err)
	}
	digest, err := img.Digest()
	if err != nil {
		return v1.Hash{}, err
	}

	dir, err := os.MkdirTemp("", "tankhost-image-")
	if err != nil {
		return v1.Hash{}, err
	}
	defer os.RemoveAll(dir)
	lp, err := layout.Write(dir, empty.Index)
	if err != nil {
		return v1.Hash{}, fmt.Errorf("layout: %w", err)
	}
	if err := lp.WriteImage(img); err != nil {
		return v1.Hash{}, fmt.Errorf("layout: %w", err)
	}
	size, err := img.Size()
	if err != nil {
		return v1.Hash{}, err
	}
	name, tag := splitTag(s.tag)
	// A plain image descriptor: what docker load, podman load and crane push expect.
	if err := lp.AppendDescriptor(v1.Descriptor{MediaType: types.OCIManifestSchema1, Size: size, Digest: digest,
		Annotations: map[string]string{
			"org.opencontainers.image.ref.name": tag,
			"io.containerd.image.name":          name + ":" + tag,
		}}); err != nil {
		return v1.Hash{}, fmt.Errorf("layout: %w", err)
	}
	if err := writeDockerManifest(dir, img, name+":"+tag); err != nil {
		return v1.Hash{}, err
	}
	if err := tarDir(dir, out, s.created); err != nil {
		return v1.Hash{}, err
	}
	return digest, nil
}

// writeDockerManifest writes the manifest.json of a docker-archive into the layout
// at dir, naming img's config and layers where the layout keeps them (blobs/ALG/HEX),
// so that one tar is both.
func writeDockerManifest(dir string, img v1.Image, ref string) error {
	blob := func(h v1.Hash) string { return path.Join("blobs", h.Algorithm, h.Hex) }
	cfg, err := img.ConfigName()
	if err != nil {
		return err
	}
	layers, err := img.Layers()
	if err != nil {
		return err
	}
	d := tarball.Descriptor{Config: blob(cfg), RepoTags: []string{ref}}
	for _, l := range layers {
		h, err := l.Digest()
		if err != nil {
			return err
		}
		d.Layers = append(d.Layers, blob(h))
	}
	data, err := json.Marshal(tarball.Manifest{d})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "manifest.json"), data, 0o644)
}

// splitTag splits "repo:tag" (a port in the registry host is not a tag); the tag
// defaults to "latest".
func splitTag(ref string) (name, tag string) {
	i := strings.LastIndex(ref, ":")
	if i < 0 || strings.Contains(ref[i:], "/") {
		return ref, "latest"
	}
	return ref[:i], ref[i+1:]
}

// layerOf returns the image's one layer, an uncompressed tar: the binary at
// Entrypoint and every regular file of s.maps under MapsDir, owned by root, and the
// empty Home owned by User, timestamped s.created.
func layerOf(s spec) ([]byte, error) {
	bin, err := os.ReadFile(s.binary)
	if err != nil {
		return nil, fmt.Errorf("binary: %w", err)
	}
	if !isStaticELF(bin) {
		return nil, fmt.Errorf("binary %s: not a static ELF executable (build it with CGO_ENABLED=0)", s.binary)
	}
	var maps []string
	err = filepath.WalkDir(s.maps, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			maps = append(maps, p)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("maps: %w", err)
	}
	if len(maps) == 0 {
		return nil, fmt.Errorf("maps: no files in %s", s.maps)
	}
	slices.Sort(maps)

	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	hdr := func(name string, mode int64, typ byte, size int) *tar.Header {
		return &tar.Header{Name: name, Mode: mode, Typeflag: typ, Size: int64(size), ModTime: s.created,
			Format: tar.FormatPAX}
	}
	for _, d := range []string{"assets/", "assets/maps/", path.Dir(strings.TrimPrefix(Home, "/")) + "/"} {
		if err := tw.WriteHeader(hdr(d, 0o755, tar.TypeDir, 0)); err != nil {
			return nil, err
		}
	}
	home := hdr(strings.TrimPrefix(Home, "/")+"/", 0o755, tar.TypeDir, 0)
	uid, gid, _ := strings.Cut(User, ":")
	home.Uid, _ = strconv.Atoi(uid)
	home.Gid, _ = strconv.Atoi(gid)
	if err := tw.WriteHeader(home); err != nil {
		return nil, err
	}
	add := func(name string, mode int64, data []byte) error {
		if err := tw.WriteHeader(hdr(name, mode, tar.TypeReg, len(data))); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	if err := add(strings.TrimPrefix(Entrypoint, "/"), 0o755, bin); err != nil {
		return nil, err
	}
	for _, p := range maps {
		rel, err := filepath.Rel(s.maps, p)
		if err != nil {
			return nil, err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("maps: %w", err)
		}
		if err := add(path.Join(strings.TrimPrefix(MapsDir, "/"), filepath.ToSlash(rel)), 0o644, data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// isStaticELF reports whether b is a Linux ELF executable with no program
// interpreter (no dynamic loader to find): what runs on an empty base.
func isStaticELF(b []byte) bool {
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return false
	}
	defer f.Close()
	if f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
		return false
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return false
		}
	}
	return true
}

// tarDir writes the files under dir to the tar file out, in name order, with fixed
// times and owners, so that the same image gives the same bytes.
func tarDir(dir, out string, mtime time.Time) (err error) {
	var files []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && p != dir {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return err
	}
	slices.Sort(files)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	tw := tar.NewWriter(f)
	for _, p := range files {
		rel, _ := filepath.Rel(dir, p)
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		h := &tar.Header{Name: filepath.ToSlash(rel), ModTime: mtime, Mode: 0o644, Typeflag: tar.TypeReg,
			Size: fi.Size(), Format: tar.FormatPAX}
		if fi.IsDir() {
			h.Name += "/"
			h.Mode, h.Typeflag, h.Size = 0o755, tar.TypeDir, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if !fi.IsDir() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if _, err := tw.Write(data); err != nil {
				return err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	return nil
}
