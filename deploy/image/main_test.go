package main

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// buildTankhost builds a static tankhost into dir, as scripts/image does.
func buildTankhost(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "tankhost")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "../../cmd/tankhost")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// untar extracts the tar file into dir.
func untar(t *testing.T, file, dir string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(p, dir) {
			t.Fatalf("tar entry %q escapes", h.Name)
		}
		if h.Typeflag == tar.TypeDir {
			os.MkdirAll(p, 0o755)
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestImage builds the image from a freshly built static tankhost and reads it back
// as an OCI layout: the config names the entrypoint and how it runs, the one layer
// holds the binary and the maps, and the binary taken out of the layer runs -h.
func TestImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tankhost; skipped with -short")
	}
	dir := t.TempDir()
	bin := buildTankhost(t, dir)
	s := spec{binary: bin, maps: "../../assets/maps", tag: "example.org:5000/treadline/tankhost:test", arch: runtime.GOARCH,
		created: time.Unix(1700000000, 0).UTC()}
	out := filepath.Join(dir, "image.tar")
	digest, err := build(s, out)
	if err != nil {
		t.Fatal(err)
	}
	again, err := build(s, filepath.Join(dir, "again.tar"))
	if err != nil {
		t.Fatal(err)
	}
	if again != digest {
		t.Errorf("same inputs, digests %s and %s", digest, again)
	}

	lay := filepath.Join(dir, "layout")
	untar(t, out, lay)
	idx, err := layout.ImageIndexFromPath(lay)
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 || im.Manifests[0].Digest != digest {
		t.Fatalf("index %+v, want one manifest %s", im.Manifests, digest)
	}
	if a := im.Manifests[0].Annotations; a["org.opencontainers.image.ref.name"] != "test" ||
		a["io.containerd.image.name"] != "example.org:5000/treadline/tankhost:test" {
		t.Errorf("annotations %v", a)
	}
	img, err := idx.Image(digest)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	if !slices.Equal(c.Entrypoint, []string{"/tankhost"}) || c.WorkingDir != "/" || c.User != "65532:65532" ||
		cf.OS != "linux" || cf.Architecture != runtime.GOARCH || !cf.Created.Time.Equal(s.created) {
		t.Errorf("config: entrypoint %q, workdir %q, user %q, %s/%s, created %v", c.Entrypoint, c.WorkingDir, c.User,
			cf.OS, cf.Architecture, cf.Created)
	}
	if _, ok := c.ExposedPorts["7777/udp"]; !ok {
		t.Errorf("exposed ports %v lack 7777/udp", c.ExposedPorts)
	}
	if !slices.Equal(c.Env, []string{"HOME=/home/tankhost"}) {
		t.Errorf("env %q, want HOME=/home/tankhost", c.Env)
	}
	checkDockerArchive(t, out, "example.org:5000/treadline/tankhost:test", img)

	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("%d layers, %v; want 1", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	var names []string
	extracted := filepath.Join(dir, "from-layer")
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if h.Name == "home/tankhost/" && (h.Typeflag != tar.TypeDir || h.Uid != 65532 || h.Gid != 65532) {
			t.Errorf("home/tankhost/: type %c, owner %d:%d; want a directory owned by 65532:65532", h.Typeflag, h.Uid, h.Gid)
		}
		if h.Name == "tankhost" {
			if h.Mode&0o111 == 0 || h.Uid != 0 {
				t.Errorf("tankhost mode %o uid %d", h.Mode, h.Uid)
			}
			data, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(extracted, data, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, want := range []string{"tankhost", "assets/maps/valley.json", "assets/maps/valley.png", "home/tankhost/"} {
		if !slices.Contains(names, want) {
			t.Errorf("layer lacks %s: %v", want, names)
		}
	}
	// The binary from the layer runs, on this machine as on an empty base.
	help, err := exec.Command(extracted, "-h").CombinedOutput()
	if err != nil {
		t.Fatalf("tankhost -h from the layer: %v\n%s", err, help)
	}
	for _, want := range []string{"Usage of tankhost", "-agones", "-metrics"} {
		if !strings.Contains(string(help), want) {
			t.Errorf("tankhost -h lacks %q:\n%s", want, help)
		}
	}
}

// checkDockerArchive reads the tar file out as a docker-archive, through its
// manifest.json, the way `docker load` does, and checks that it is the image the OCI
// layout holds (oci), tagged ref: the same config, the same layers.
func checkDockerArchive(t *testing.T, out, ref string, oci v1.Image) {
	t.Helper()
	tag, err := name.NewTag(ref)
	if err != nil {
		t.Fatal(err)
	}
	m, err := tarball.LoadManifest(func() (io.ReadCloser, error) { return os.Open(out) })
	if err != nil {
		t.Fatalf("docker-archive: %v", err)
	}
	if len(m) != 1 || !slices.Equal(m[0].RepoTags, []string{ref}) {
		t.Fatalf("docker-archive manifest.json %+v, want one image tagged %s", m, ref)
	}
	img, err := tarball.ImageFromPath(out, &tag)
	if err != nil {
		t.Fatalf("docker-archive: %v", err)
	}
	for _, get := range []struct {
		what string
		f    func(v1.Image) (any, error)
	}{
		{"config", func(i v1.Image) (any, error) { return i.ConfigName() }},
		{"raw config", func(i v1.Image) (any, error) { b, err := i.RawConfigFile(); return string(b), err }},
		{"layers", func(i v1.Image) (any, error) {
			ls, err := i.Layers()
			var ds []v1.Hash
			for _, l := range ls {
				d, derr := l.DiffID()
				ds, err = append(ds, d), errors.Join(err, derr)
			}
			return fmt.Sprint(ds), err
		}},
	} {
		want, err := get.f(oci)
		if err != nil {
			t.Fatal(err)
		}
		got, err := get.f(img)
		if err != nil || got != want {
			t.Errorf("docker-archive %s %v (%v), want the OCI layout's %v", get.what, got, err, want)
		}
	}
}

// TestImageRefusesDynamicBinary: a binary that needs a dynamic loader would not run
// on the empty base, so it is refused.
func TestImageRefusesDynamicBinary(t *testing.T) {
	dir := t.TempDir()
	notELF := filepath.Join(dir, "script")
	os.WriteFile(notELF, []byte("#!/bin/sh\necho hi\n"), 0o755)
	for _, bin := range []string{notELF, "/bin/sh"} {
		if _, err := os.Stat(bin); err != nil {
			continue
		}
		_, err := build(spec{binary: bin, maps: "../../assets/maps", tag: "x:y", arch: "amd64"}, filepath.Join(dir, "x.tar"))
		if err == nil || !strings.Contains(err.Error(), "static") {
			t.Errorf("%s: %v, want a refusal naming static builds", bin, err)
		}
	}
}

func TestSplitTag(t *testing.T) {
	for _, tc := range []struct{ ref, name, tag string }{
		{"treadline/tankhost:dev", "treadline/tankhost", "dev"},
		{"treadline/tankhost", "treadline/tankhost", "latest"},
		{"registry:5000/tankhost", "registry:5000/tankhost", "latest"},
		{"registry:5000/tankhost:v1", "registry:5000/tankhost", "v1"},
	} {
		if n, tg := splitTag(tc.ref); n != tc.name || tg != tc.tag {
			t.Errorf("splitTag(%q) = %q, %q; want %q, %q", tc.ref, n, tg, tc.name, tc.tag)
		}
	}
}

func TestSourceDateEpoch(t *testing.T) {
	if got, err := sourceDateEpoch(""); err != nil || got.Unix() != 0 {
		t.Errorf("empty: %v, %v", got, err)
	}
	if got, err := sourceDateEpoch("1700000000"); err != nil || got.Unix() != 1700000000 {
		t.Errorf("1700000000: %v, %v", got, err)
	}
	for _, bad := range []string{"-1", "yesterday"} {
		if _, err := sourceDateEpoch(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestDockerfileMatches: the Dockerfile builds what scripts/image builds: a static
// binary at the entrypoint and the maps at MapsDir on an empty base, run as User from
// WorkDir, with the same ports and default arguments.
func TestDockerfileMatches(t *testing.T) {
	data, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var final []string // the instructions of the last stage
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "FROM ") {
			final = nil
		}
		final = append(final, line)
	}
	want := []string{
		"FROM scratch",
		"COPY --from=build /out/tankhost " + Entrypoint,
		"COPY assets/maps " + MapsDir,
		"COPY --from=build --chown=" + User + " /out/home " + Home,
		"ENV HOME=" + Home,
		"WORKDIR " + WorkDir,
		"USER " + User,
		"EXPOSE " + GamePort + " " + MetricsPort,
		`ENTRYPOINT ["` + Entrypoint + `"]`,
		`CMD ["-listen", ":` + strings.TrimSuffix(GamePort, "/udp") + `"]`,
	}
	if !slices.Equal(final, want) {
		t.Errorf("the Dockerfile's last stage is\n%s\nwant\n%s", strings.Join(final, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(string(data), "CGO_ENABLED=0") || !strings.Contains(string(data), "./cmd/tankhost") {
		t.Error("the Dockerfile does not build a static tankhost")
	}
}
