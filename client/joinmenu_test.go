package client

import (
	"bufio"
	"context"
	"flag"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/g3n/engine/window"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/poll"
	"github.com/treadline/treadline/internal/progtest"
	"github.com/treadline/treadline/render"
	"github.com/treadline/treadline/session"
)

var docs = flag.Bool("docs", false, "write the screenshots of the Join menu and the kill camera to assets/docs/ (tanks-join-menu.png, killcam-live.png)")

// program is a started command whose stderr lines are collected.
type program struct {
	mu    sync.Mutex
	lines []string
}

// run builds the command in directory pkg (relative to this package) into dir,
// unless an earlier run built it there, and starts it with args; it is killed when
// the test ends. progtest.Build links it once for every test that runs it.
func run(t *testing.T, dir, pkg string, args ...string) *program {
	t.Helper()
	bin := filepath.Join(dir, filepath.Base(pkg))
	if _, err := os.Stat(bin); err != nil {
		if err := progtest.Build(pkg, bin); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &program{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			p.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		<-done
		if t.Failed() {
			t.Logf("%s:\n%s", pkg, strings.Join(p.lines, "\n"))
		}
	})
	return p
}

// line waits for a stderr line matching re and returns its submatches.
func (p *program) line(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	var m []string
	poll.Until(t, 90*time.Second, "a line matching "+re.String(), func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, l := range p.lines {
			if m = re.FindStringSubmatch(l); m != nil {
				return true
			}
		}
		return false
	})
	return m
}

var pingRE = regexp.MustCompile(`ping \d+ ms`)

var hostRE = regexp.MustCompile(`addr=(\S+) fingerprint=([0-9a-f]+)`)

// rowOf returns the index of the first row whose value ends with end, or -1.
func rowOf(items [][2]string, end string) int {
	for i, it := range items {
		if strings.HasSuffix(it[1], end) {
			return i
		}
	}
	return -1
}

// textBands counts the bands of rows of the picture that hold the menu's bright text.
func textBands(img *image.RGBA) int {
	bands, in := 0, false
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		bright := 0
		for x := b.Min.X; x < b.Max.X; x++ {
			i := img.PixOffset(x, y)
			if img.Pix[i] > 200 && img.Pix[i+1] > 200 && img.Pix[i+2] > 200 {
				bright++
			}
		}
		if on := bright > 2; on != in {
			in = on
			if on {
				bands++
			}
		}
	}
	return bands
}

// finding is what TestJoinMenuFindsAndJoins runs: a tanklist, a tankhost announced
// on the loopback interface and another registered with the list (passphrase
// "secret"), each host's address and fingerprint, and the menu's window.
type finding struct {
	t                 *testing.T
	v                 *render.Viewer
	dir               string
	listURL, listBase string
	listHost          string
	lan, far          []string // address, fingerprint
	set               Settings
	find              *FindConfig
}

// startFinding starts the programs.
func startFinding(t *testing.T, v *render.Viewer) *finding {
	dir := t.TempDir()
	f := &finding{t: t, v: v, dir: dir}
	list := run(t, dir, "../cmd/tanklist", "-listen", "127.0.0.1:0", "-allow-private", "-identity", filepath.Join(dir, "list.pem"))
	f.listURL = list.line(t, regexp.MustCompile(`url=(https://\S+)`))[1]
	f.listBase = strings.TrimSuffix(strings.Split(f.listURL, "#")[0], "/")
	f.listHost = strings.TrimPrefix(f.listBase, "https://")
	lanHost := run(t, dir, "../cmd/tankhost", "-listen", "127.0.0.1:0", "-bots", "1", "-lan", "lo", "-map", "dunes",
		"-identity", filepath.Join(dir, "lan.pem"))
	f.lan = lanHost.line(t, hostRE)[1:]
	listed := run(t, dir, "../cmd/tankhost", "-listen", "127.0.0.1:0", "-bots", "2", "-lan", "off", "-pass", "secret",
		"-list", f.listURL, "-identity", filepath.Join(dir, "listed.pem"))
	f.far = listed.line(t, hostRE)[1:]
	listed.line(t, regexp.MustCompile(`msg=listed`))
	f.set = DefaultSettings()
	f.set.Name, f.set.Lists = "finder", f.listURL
	f.find = &FindConfig{LAN: "lo", ListEvery: time.Second, KnownHosts: filepath.Join(dir, "known_hosts")}
	return f
}

// press sends keys to the window; call it on the main thread.
func (f *finding) press(keys ...window.Key) {
	for _, k := range keys {
		f.v.Window().Dispatch(window.OnKeyDown, &window.KeyEvent{Key: k})
	}
}

// open starts a menu on the Join screen and draws it until both matches show with
// their pings measured.
func (f *finding) open() *menuRunner {
	return f.openUntil("both matches with their pings", func(items [][2]string) bool {
		return measured(items, "this network") && measured(items, f.listHost)
	})
}

// measured reports whether the row whose value ends with end shows a measured ping.
func measured(items [][2]string, end string) bool {
	i := rowOf(items, end)
	return i >= 0 && pingRE.MatchString(items[i][1])
}

// openUntil starts a menu on the Join screen and draws it until it lists two matches
// and until holds for its rows.
func (f *finding) openUntil(what string, until func(items [][2]string) bool) *menuRunner {
	var r *menuRunner
	gl.Do(func() {
		r = newMenuRunner(f.v, MenuConfig{Settings: f.set, Find: f.find})
		f.press(window.KeyDown, window.KeyDown, window.KeyEnter) // Join a match…
	})
	var items [][2]string
	ok := poll.Within(30*time.Second, func() bool {
		gl.Do(func() {
			if err := r.frame(); err != nil {
				f.t.Fatal(err)
			}
			f.v.Swap()
			items = r.m.page().Items
		})
		return len(items) == 7 && until(items) // two matches, Join as, Looking on, List servers, Type, Back
	})
	if !ok {
		f.t.Fatalf("the Join menu does not list %s within 30 s: %q", what, items)
	}
	return r
}

// selectRow moves the selection of r down to the row whose value ends with end
// (the selection stays on the match it was on as rows come and go, so it need not
// be the first).
func (f *finding) selectRow(r *menuRunner, end string) {
	p := r.m.page()
	for range (rowOf(p.Items, end) - p.Selected + len(p.Items)) % len(p.Items) {
		f.press(window.KeyDown)
	}
	if got := r.m.page(); got.Selected != rowOf(got.Items, end) {
		f.t.Fatalf("selected row %d of %q, want the one ending %q", got.Selected, got.Items, end)
	}
}

// join joins the match the menu chose, as tanks does.
func (f *finding) join(s Settings) {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, sess, err := session.Join(ctx, session.JoinConfig{Addr: s.Last.JoinAddr, Passphrase: s.Last.JoinPass,
		KnownHosts: filepath.Join(f.dir, "known_hosts"), Remember: s.Last.JoinVia == "lan", Match: game.Config{Name: s.Name}})
	if err != nil {
		f.t.Fatalf("join %s: %v", s.Last.JoinAddr, err)
	}
	if m == nil {
		f.t.Fatal("joined without a match")
	}
	sess.Close()
}

// checkPicture checks what the Join menu shows and keeps its picture (with -docs as
// the documentation's screenshot).
func (f *finding) checkPicture(page render.MenuPage, img *image.RGBA) {
	t := f.t
	// tankhost names its match by the machine and the port, and each row says the
	// match's address.
	port := func(addr string) string { return addr[strings.LastIndex(addr, ":"):] }
	for _, want := range [][]string{
		{port(f.lan[0]) + " ", f.lan[0] + " · dunes · 0/", "this network"},
		{port(f.far[0]) + " ", f.far[0] + " · valley · 0/", "passphrase", f.listHost},
	} {
		i := rowOf(page.Items, want[len(want)-1])
		if i < 0 {
			t.Fatalf("no row says %q: %q", want[len(want)-1], page.Items)
		}
		row := page.Items[i][0] + " " + page.Items[i][1]
		for _, w := range want {
			if !strings.Contains(row, w) {
				t.Errorf("row %d %q lacks %q", i, row, w)
			}
		}
	}
	if !strings.Contains(page.Hint, "trusted as far as this network is") {
		t.Errorf("with the local match selected the hint says %q, not how far it is trusted", page.Hint)
	}
	if n := highlightPixels(img); n < 500 {
		t.Errorf("Join menu: %d highlighted pixels; the selected row is not drawn", n)
	}
	if n := textBands(img); n < len(page.Items)+2 {
		t.Errorf("Join menu: %d bands of text, want the title, %d rows and the hint", n, len(page.Items))
	}
	shot := filepath.Join(shotDir(t), "menu-join-found.png")
	if *docs {
		shot, _ = filepath.Abs("../assets/docs/tanks-join-menu.png")
	}
	out, err := os.Create(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if err := png.Encode(out, img); err != nil {
		t.Fatal(err)
	}
}

// TestJoinMenuFindsAndJoins: with a tankhost announcing itself on the loopback
// interface (real multicast) and another registered with a tanklist, the Join menu
// lists both, live, with pings it measured; the picture shows them; Enter on the one
// found on the local network joins it, and its fingerprint is remembered in the
// known hosts; Enter on the listed one asks for its passphrase and joins it with it.
func TestJoinMenuFindsAndJoins(t *testing.T) {
	v := needViewer(t)
	if testing.Short() {
		t.Skip("starts real programs; skipped with -short")
	}
	f := startFinding(t, v)
	r := f.open()
	var img *image.RGBA
	var page render.MenuPage
	gl.Do(func() {
		f.selectRow(r, "this network")
		page = r.m.page()
		if err := r.frame(); err != nil {
			t.Fatal(err)
		}
		img = v.Capture()
		v.Swap()
	})
	f.checkPicture(page, img)

	gl.Do(func() { f.press(window.KeyEnter); r.close() })
	lan := f.lan[0] + "#" + f.lan[1]
	if !r.done || r.mode != MenuJoin || r.s.Last.JoinAddr != lan || r.s.Last.JoinVia != "lan" {
		t.Fatalf("Enter on the local match: done %v mode %v last %+v, want a join of %s found on lan", r.done, r.mode, r.s.Last, lan)
	}
	f.join(r.s)
	if b, err := os.ReadFile(filepath.Join(f.dir, "known_hosts")); err != nil || !strings.Contains(string(b), f.lan[0]+" "+f.lan[1]) {
		t.Errorf("known hosts %q (%v) does not remember %s %s", b, err, f.lan[0], f.lan[1])
	}

	r = f.open()
	gl.Do(func() {
		f.selectRow(r, f.listHost)
		f.press(window.KeyEnter) // its passphrase first
		for _, c := range "secret" {
			v.Window().Dispatch(window.OnChar, &window.CharEvent{Char: c})
		}
		f.press(window.KeyEnter)
		r.close()
	})
	far := f.far[0] + "#" + f.far[1]
	if !r.done || r.mode != MenuJoin || r.s.Last.JoinAddr != far || r.s.Last.JoinPass != "secret" || r.s.Last.JoinVia != f.listBase {
		t.Fatalf("Enter on the listed match: done %v mode %v last %+v", r.done, r.mode, r.s.Last)
	}
	f.join(r.s)

	// Another certificate remembered at the local match's address: its row says so
	// before a join is refused for it.
	other := f.lan[0] + " " + strings.Repeat("ab", 32) + "\n"
	if err := os.WriteFile(filepath.Join(f.dir, "known_hosts"), []byte(other), 0o600); err != nil {
		t.Fatal(err)
	}
	r = f.openUntil("the local match's changed certificate", func(items [][2]string) bool {
		i := rowOf(items, "this network")
		return measured(items, f.listHost) && i >= 0 && strings.Contains(items[i][1], "certificate changed since you joined")
	})
	gl.Do(r.close)
}
