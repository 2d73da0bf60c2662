package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/treadline/treadline/client"
	"github.com/treadline/treadline/internal/progtest"
)

// runOut runs a program from dir to its end and returns its stdout.
func runOut(t *testing.T, dir, name string, args ...string) (string, time.Duration) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %q: %v\n%s", filepath.Base(name), args, err, out)
	}
	return string(out), time.Since(start)
}

// TestListFindsHost: "tanks -list", run from /, finds a tankhost started on this
// machine within 2 s, on the loopback interface, and prints the line that joins it.
func TestListFindsHost(t *testing.T) {
	tanks, tankhost := buildTools(t)
	host := start(t, tankhost, "-listen", "127.0.0.1:0", "-bots", "2", "-map", "dunes", "-pass", "p",
		"-identity", filepath.Join(t.TempDir(), "identity.pem"))
	m := host.waitLine(t, listenRE, 30*time.Second)
	out, took := runOut(t, "/", tanks, "-list")
	want := "tanks -join " + m[1] + "#" + m[2]
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasSuffix(l, want) {
			line = l
		}
	}
	if line == "" {
		t.Fatalf("tanks -list printed no line ending %q:\n%s", want, out)
	}
	// tankhost names its match by the machine and the port; its address follows.
	port := m[1][strings.LastIndex(m[1], ":"):]
	for _, w := range []string{port + "  " + m[1] + "  map dunes", "players 0/", "passphrase", "via lan"} {
		if !strings.Contains(line, w) {
			t.Errorf("line %q lacks %q", line, w)
		}
	}
	if took > 2*time.Second {
		t.Errorf("tanks -list took %v, want within 2 s", took)
	}
}

// TestFindThroughTanklistAndJoin: a tankhost registers with a tanklist, "tanks -list
// -lists URL" finds it there (and not on the local network: -lan off), and the line
// it prints joins the match.
func TestFindThroughTanklistAndJoin(t *testing.T) {
	tanks, tankhost := buildTools(t)
	tanklist := filepath.Join(t.TempDir(), "tanklist")
	if err := progtest.Build("../tanklist", tanklist); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	list := start(t, tanklist, "-listen", "127.0.0.1:0", "-allow-private", "-identity", filepath.Join(dir, "list.pem"))
	listURL := list.waitLine(t, regexp.MustCompile(`url=(https://\S+)`), 30*time.Second)[1]
	host := start(t, tankhost, "-listen", "127.0.0.1:0", "-bots", "1", "-lan", "off", "-list", listURL,
		"-identity", filepath.Join(dir, "identity.pem"))
	m := host.waitLine(t, listenRE, 30*time.Second)
	host.waitLine(t, regexp.MustCompile(`msg=listed`), 30*time.Second)
	cfg := t.TempDir()
	listed := exec.Command(tanks, "-list", "-lan", "off", "-lists", listURL)
	listed.Dir, listed.Env = "/", append(os.Environ(), "XDG_CONFIG_HOME="+cfg)
	b, err := listed.Output()
	out := string(b)
	join := regexp.MustCompile(`tanks -join (\S+)`).FindStringSubmatch(out)
	if err != nil || join == nil || join[1] != m[1]+"#"+m[2] || !strings.Contains(out, "via "+strings.TrimSuffix(strings.Split(listURL, "#")[0], "/")) {
		t.Fatalf("tanks -list -lists printed %q (%v), want the host %s#%s via the list", out, err, m[1], m[2])
	}
	// -lists is remembered in the settings, and the list servers the settings
	// remember serve -list without -lists.
	if set, err := client.LoadSettings(filepath.Join(cfg, "treadline", "settings.json")); err != nil || set.Lists != listURL {
		t.Errorf("after tanks -list -lists, the settings remember lists %q (%v), want %q", set.Lists, err, listURL)
	}
	cmd := exec.Command(tanks, "-list", "-lan", "off")
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+cfg)
	if out, err := cmd.Output(); err != nil || !strings.Contains(string(out), "tanks -join "+m[1]+"#"+m[2]) {
		t.Errorf("tanks -list with the lists remembered in the settings printed %q (%v), want the host %s", out, err, m[1])
	}
	shot := filepath.Join(dir, "joined.png")
	client := startFrom(t, "/", tanks, "-join", join[1], "-name", "finder", "-screenshot", shot, "-frames", "2", "-size", "320x200")
	if code := client.wait(t, 90*time.Second); code != 0 {
		t.Fatalf("joining the match found through the list: exit code %d", code)
	}
}

// TestListFindsTanksHost: "tanks -host" announces its match too, with the hosting
// player's name; a practice match does not.
func TestListFindsTanksHost(t *testing.T) {
	tanks, _ := buildTools(t)
	dir := t.TempDir()
	host := start(t, tanks, "-host", "127.0.0.1:0", "-name", "hosty", "-bots", "1", "-identity", filepath.Join(dir, "id.pem"),
		"-screenshot", filepath.Join(dir, "host.png"), "-duration", "20s", "-size", "320x200")
	m := host.waitLine(t, regexp.MustCompile(`others join with: tanks -join (\S+)`), 60*time.Second)
	start(t, tanks, "-bots", "1", "-name", "practising", "-screenshot", filepath.Join(dir, "p.png"),
		"-duration", "20s", "-size", "320x200")
	out, _ := runOut(t, "/", tanks, "-list")
	addr, _, _ := strings.Cut(m[1], "#")
	if !strings.Contains(out, "hosty  "+addr+"  map valley  players 1/32") || !strings.Contains(out, "tanks -join "+m[1]) {
		t.Errorf("tanks -list printed %q, want hosty's match joined with %s", out, m[1])
	}
	if strings.Contains(out, "practis") {
		t.Errorf("a practice match was announced: %q", out)
	}
}
