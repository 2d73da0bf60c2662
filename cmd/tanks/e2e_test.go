package main

import (
	"bufio"
	"context"
	"image"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/treadline/treadline/internal/poll"
	"github.com/treadline/treadline/internal/progtest"
)

// The end-to-end tests run the real programs, built without -race (the race
// detector rejects g3n's vertex uploads; see render/race_test.go), on loopback.

// built is the one build of the programs the end-to-end tests share.
var built struct {
	once            sync.Once
	tanks, tankhost string
	err             error
}

// buildTools builds cmd/tanks and cmd/tankhost, once for all the tests, into the
// temporary configuration directory clitest.Main made (and removes at the end), and
// marks the test as one that runs beside the others: each starts its own programs on
// its own ports.
func buildTools(t *testing.T) (tanks, tankhost string) {
	t.Helper()
	if os.Getenv("DISPLAY") == "" {
		t.Skip("DISPLAY is not set; run under xvfb-run for the end-to-end tests")
	}
	if testing.Short() {
		t.Skip("end-to-end tests start real processes; skipped with -short")
	}
	t.Parallel()
	built.once.Do(func() {
		dir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "e2e-bin")
		built.tanks, built.tankhost = filepath.Join(dir, "tanks"), filepath.Join(dir, "tankhost")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			built.err = err
			return
		}
		for out, pkg := range map[string]string{built.tanks: ".", built.tankhost: "../tankhost"} {
			if built.err = progtest.Build(pkg, out); built.err != nil {
				return
			}
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.tanks, built.tankhost
}

// proc is a started program whose stderr lines are collected.
type proc struct {
	cmd   *exec.Cmd
	mu    sync.Mutex
	lines []string
	done  chan struct{}
	err   error
}

func start(t *testing.T, name string, args ...string) *proc {
	t.Helper()
	return startFrom(t, "../..", name, args...) // the repository root
}

// startFrom starts the program name in the directory dir.
func startFrom(t *testing.T, dir, name string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(name, args...), done: make(chan struct{})}
	p.cmd.Dir = dir
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stdout = io.Discard
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			p.mu.Unlock()
		}
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("%s output:\n%s", filepath.Base(name), p.output())
		}
	})
	return p
}

func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}

// waitLine waits until a stderr line matches re and returns its submatches.
func (p *proc) waitLine(t *testing.T, re *regexp.Regexp, timeout time.Duration) []string {
	t.Helper()
	var (
		m      []string
		exited bool
	)
	find := func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, l := range p.lines {
			if m = re.FindStringSubmatch(l); m != nil {
				return true
			}
		}
		return false
	}
	poll.Within(timeout, func() bool {
		select {
		case <-p.done:
			exited = true // every line is in: one last look
		default:
		}
		return find() || exited
	})
	switch {
	case m != nil:
		return m
	case exited:
		t.Fatalf("%s exited (%v) before printing a line matching %q", p.cmd.Path, p.err, re)
	}
	t.Fatalf("no line matching %q within %v", re, timeout)
	return nil
}

// wait waits for the program to exit and returns its exit code.
func (p *proc) wait(t *testing.T, timeout time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		t.Fatalf("%s still running after %v", p.cmd.Path, timeout)
	}
	if ee, ok := p.err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if p.err != nil {
		t.Fatalf("%s: %v", p.cmd.Path, p.err)
	}
	return 0
}

var listenRE = regexp.MustCompile(`addr=(\S+) fingerprint=([0-9a-f]+)`)

// startHost starts tankhost with one bot on a random loopback port, and the extra
// flags, and returns it and the join argument.
func startHost(t *testing.T, tankhost string, extra ...string) (*proc, string) {
	t.Helper()
	host := start(t, tankhost, append([]string{"-listen", "127.0.0.1:0", "-bots", "1", "-seed", "5",
		"-identity", filepath.Join(t.TempDir(), "identity.pem")}, extra...)...)
	m := host.waitLine(t, listenRE, 30*time.Second)
	return host, m[1] + "#" + m[2]
}

var tankRE = regexp.MustCompile(`msg=tank id=(\d+) name=(\S+) team=(\d+) local=(\w+) self=(\w+) distance=\S+ on_screen=(\w+) x=(-?\d+) y=(-?\d+)`)

// TestJoinShowsHostTank runs a host and a client on loopback; the client watches the
// host's tank and its screenshot shows that tank, in its team colour, where the
// client's camera projects it.
func TestJoinShowsHostTank(t *testing.T) {
	tanks, tankhost := buildTools(t)
	_, join := startHost(t, tankhost)
	shot := filepath.Join(t.TempDir(), "client.png")
	client := start(t, tanks, "-join", join, "-name", "e2e", "-watch", "*", "-size", "640x360",
		"-screenshot", shot, "-duration", "3s", "-v")
	if code := client.wait(t, 90*time.Second); code != 0 {
		t.Fatalf("client exit code %d", code)
	}
	img := readPNG(t, shot)
	found := false
	for _, l := range strings.Split(client.output(), "\n") {
		m := tankRE.FindStringSubmatch(l)
		if m == nil || m[4] != "false" {
			continue // only the host's (remote) tank
		}
		if m[6] != "true" {
			t.Fatalf("the watched host tank is off screen: %s", l)
		}
		x, _ := strconv.Atoi(m[7])
		y, _ := strconv.Atoi(m[8])
		team, _ := strconv.Atoi(m[3])
		// The turret roof and what surrounds it within 6 px: mostly the team colour,
		// with the dark cupola and gun in places.
		if n, of := teamPixels(img, team, x, y, 6); n*4 < of {
			t.Errorf("host tank %s (team %d) around pixel (%d, %d): %d of %d pixels in the team colour", m[2], team, x, y, n, of)
		}
		found = true
	}
	if !found {
		t.Fatalf("the client's last frame has no remote tank:\n%s", client.output())
	}
}

// TestMatchEndings plays a joined match to each way it can end and checks what the
// player is told and the exit code: the end panel waits for a key (here SIGINT stands
// in for it), says what happened in a person's words and keeps the chain for the log.
func TestMatchEndings(t *testing.T) {
	tanks, tankhost := buildTools(t)
	ended := regexp.MustCompile(`msg="match ended"`)
	for _, c := range []struct {
		name     string
		hostArgs []string
		end      func(t *testing.T, host, client *proc)
		code     int
		last     string // the client's last line starts with this
	}{
		{"host killed", nil, func(t *testing.T, host, _ *proc) { host.cmd.Process.Signal(syscall.SIGKILL) },
			1, "tanks: Lost the connection to 127.0.0.1:"},
		{"host stopped", nil, func(t *testing.T, host, _ *proc) {
			host.cmd.Process.Signal(syscall.SIGTERM)
			if code := host.wait(t, 20*time.Second); code != 0 {
				t.Errorf("tankhost exit code %d after SIGTERM, want 0", code)
			}
		}, 0, "tanks: The host ended the match."},
		// The host drops a silent player after 2 s here (6 s by default): the client
		// stays stopped until the host says it timed the player out.
		{"client paused and dropped", []string{"-timeout", "2s"}, func(t *testing.T, host, client *proc) {
			client.cmd.Process.Signal(syscall.SIGSTOP)
			host.waitLine(t, regexp.MustCompile(`msg="player timed out"`), 60*time.Second)
			client.cmd.Process.Signal(syscall.SIGCONT)
		}, 1, "tanks: The host at 127.0.0.1:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			host, join := startHost(t, tankhost, c.hostArgs...)
			client := start(t, tanks, "-join", join, "-name", "e2e", "-size", "320x200", "-v")
			client.waitLine(t, regexp.MustCompile(`msg=joined`), 60*time.Second)
			client.waitLine(t, regexp.MustCompile(`msg="match started"`), 60*time.Second) // in play
			c.end(t, host, client)
			client.waitLine(t, ended, 30*time.Second)
			select {
			case <-client.done:
				t.Fatalf("the client quit without waiting for a key")
			case <-time.After(time.Second):
			}
			client.cmd.Process.Signal(syscall.SIGINT) // stands in for the key press
			if code := client.wait(t, 20*time.Second); code != c.code {
				t.Errorf("client exit code %d, want %d", code, c.code)
			}
			lines := strings.Split(client.output(), "\n")
			if last := lines[len(lines)-1]; !strings.HasPrefix(last, c.last) {
				t.Errorf("client's last line %q, want %q…", last, c.last)
			}
		})
	}
}

// TestScreenshotAndBench runs a practice match for a screenshot and a short
// -bench-frames run and checks the picture's size and the report's phases.
func TestScreenshotAndBench(t *testing.T) {
	tanks, _ := buildTools(t)
	shot := filepath.Join(t.TempDir(), "practice.png")
	p := start(t, tanks, "-screenshot", shot, "-frames", "3", "-size", "400x240", "-bots", "2")
	if code := p.wait(t, 90*time.Second); code != 0 {
		t.Fatalf("screenshot run exit code %d", code)
	}
	if b := readPNG(t, shot).Bounds(); b.Dx() != 400 || b.Dy() != 240 {
		t.Errorf("screenshot is %dx%d, want 400x240", b.Dx(), b.Dy())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, tanks, "-bench-frames", "5", "-size", "320x200", "-bots", "3")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bench run: %v", err)
	}
	for _, want := range []string{"frame-time split: 5 frames, 4 tanks, 320x200", "simulation", "scene update", "render", "swap", "total"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("bench report lacks %q:\n%s", want, out)
		}
	}
}

func readPNG(t *testing.T, path string) *image.RGBA {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	rgba, ok := img.(*image.RGBA)
	if !ok {
		b := img.Bounds()
		rgba = image.NewRGBA(b)
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				rgba.Set(x, y, img.At(x, y))
			}
		}
	}
	return rgba
}

// teamPixels counts the pixels of team's hue among the (2k+1)² around (x, y).
func teamPixels(img *image.RGBA, team, x, y, k int) (n, of int) {
	for dy := -k; dy <= k; dy++ {
		for dx := -k; dx <= k; dx++ {
			c := img.RGBAAt(x+dx, y+dy)
			if teamHue(team, float64(c.R)/255, float64(c.G)/255, float64(c.B)/255) {
				n++
			}
			of++
		}
	}
	return n, of
}

// teamHue reports whether a lit pixel has team's hue: the render package's team
// colours are red, blue, yellow and green for teams 0 to 3.
func teamHue(team int, r, g, b float64) bool {
	switch ((team % 4) + 4) % 4 {
	case 0:
		return r > g+0.15 && r > b+0.15
	case 1:
		return b > r+0.15 && b > g+0.05
	case 2:
		return r > b+0.2 && g > b+0.2
	default:
		return g > r+0.1 && g > b+0.1
	}
}
