package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestJoinFailureSentence: a join that fails shows one sentence in the window until a
// key is pressed (SIGINT stands in for it here), then ends the client with exit code 1
// and that sentence, which names the address once and says what to try; the chain is
// in the log (-v), not in that sentence.
func TestJoinFailureSentence(t *testing.T) {
	tanks, tankhost := buildTools(t)
	host := start(t, tankhost, "-listen", "127.0.0.1:0", "-bots", "0", "-pass", "secret",
		"-identity", filepath.Join(t.TempDir(), "identity.pem"))
	m := host.waitLine(t, listenRE, 30*time.Second)
	addr := m[1]
	for _, c := range []struct {
		name, addr string
		args       []string
		want       string
	}{
		{"wrong passphrase", addr, []string{"-join", addr + "#" + m[2], "-pass", "guess"},
			"tanks: The match at " + addr + " needs a passphrase and the one given is wrong or missing: ask the host for it"},
		// The discard port: nothing answers there.
		{"no answer", "127.0.0.1:9", []string{"-join", "127.0.0.1:9#" + m[2]},
			"tanks: No answer from 127.0.0.1:9: check the address and port"},
	} {
		t.Run(c.name, func(t *testing.T) {
			client := start(t, tanks, append(c.args, "-size", "320x200", "-v")...)
			client.waitLine(t, regexp.MustCompile(`msg="match could not start"`), 30*time.Second)
			// Timed on the client's own log, from the connecting screen to the
			// failure: a loaded machine can hold the window's opening for seconds,
			// which says nothing about how long a join waits before it gives up.
			if took, ok := loggedBetween(client.output(), `msg=connecting`, `msg="join failed"`); !ok {
				t.Errorf("the log lacks the connecting or the failure line:\n%s", client.output())
			} else if took > 12*time.Second {
				t.Errorf("the client took %v from connecting to give up", took)
			}
			select {
			case <-client.done:
				t.Fatalf("the client quit without showing the sentence until a key")
			case <-time.After(time.Second):
			}
			client.cmd.Process.Signal(syscall.SIGINT) // stands in for the key press
			if code := client.wait(t, 30*time.Second); code != 1 {
				t.Errorf("exit code %d, want 1", code)
			}
			lines := strings.Split(client.output(), "\n")
			last := lines[len(lines)-1]
			if !strings.HasPrefix(last, c.want) {
				t.Errorf("last line %q, want %q…", last, c.want)
			}
			if n := strings.Count(last, c.addr); n != 1 {
				t.Errorf("last line names %s %d times", c.addr, n)
			}
			if !regexp.MustCompile(`msg="join failed"`).MatchString(client.output()) {
				t.Errorf("the log lacks the failure's chain:\n%s", client.output())
			}
		})
	}
}

// TestJoinShowsConnecting: the window opens at once on the connecting screen, drawn
// within a second of the window's opening, while a join to an address that never
// answers (which gives up after 8 s) runs; the screenshot at 1 s shows it.
//
// The second is the client's own: the log's times of the window's opening and of the
// screen's first drawing, less the time its main thread spent between them ready to
// run but waiting for a CPU (runqueue, from the kernel's accounting), which a loaded
// machine adds and a player's idle one does not.
func TestJoinShowsConnecting(t *testing.T) {
	tanks, _ := buildTools(t)
	shot := filepath.Join(t.TempDir(), "connecting.png")
	began := time.Now()
	client := start(t, tanks, "-join", "127.0.0.1:9", "-screenshot", shot, "-duration", "1s", "-size", "320x200", "-v")
	if code := client.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("exit code %d, want 0", code)
	}
	at := func(msg string) (time.Time, time.Duration) {
		m := regexp.MustCompile(`time=(\S+) level=INFO msg=` + msg + `.* runqueue=(\S+)`).FindStringSubmatch(client.output())
		if m == nil {
			t.Fatalf("no %s with its runqueue in the log:\n%s", msg, client.output())
		}
		when, err := time.Parse(time.RFC3339Nano, m[1])
		if err != nil {
			t.Fatal(err)
		}
		waited, err := time.ParseDuration(m[2])
		if err != nil {
			t.Fatal(err)
		}
		return when, waited
	}
	opened, waitedOpen := at(`"window open"`)
	drawn, waitedDrawn := at(`connecting`)
	wall, waited := drawn.Sub(opened), waitedDrawn-waitedOpen
	if d := wall - waited; d > time.Second {
		t.Errorf("the connecting screen was drawn %v after the window opened (%v, %v of it waiting for a CPU), want within 1 s",
			d, wall, waited)
	}
	t.Logf("window open %v after the start, connecting screen drawn %v later, %v of it waiting for a CPU",
		opened.Sub(began).Round(time.Millisecond), wall.Round(time.Millisecond), waited.Round(time.Millisecond))
	m := regexp.MustCompile(`msg="screenshot written".* frames=(\d+) screen=connecting`).FindStringSubmatch(client.output())
	if m == nil {
		t.Fatalf("no screenshot of the connecting screen in the log:\n%s", client.output())
	}
	if n, _ := strconv.Atoi(m[1]); n < 1 {
		t.Errorf("the connecting screen drew %s frames in its first second", m[1])
	}
	img := readPNG(t, shot)
	lit := 0
	for i := 0; i+3 < len(img.Pix); i += 4 {
		if img.Pix[i] > 170 && img.Pix[i+1] > 170 && img.Pix[i+2] > 170 {
			lit++
		}
	}
	if lit < 100 {
		t.Errorf("the connecting screenshot has %d lit pixels: no text drawn", lit)
	}
}

// loggedBetween is the time between the first log line holding from and the first
// after it holding to, read from the lines' own time= stamps.
func loggedBetween(log, from, to string) (time.Duration, bool) {
	stamp := regexp.MustCompile(`time=(\S+)`)
	var begin time.Time
	for _, line := range strings.Split(log, "\n") {
		m := stamp.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, m[1])
		if err != nil {
			continue
		}
		switch {
		case begin.IsZero() && strings.Contains(line, from):
			begin = at
		case !begin.IsZero() && strings.Contains(line, to):
			return at.Sub(begin), true
		}
	}
	return 0, false
}
