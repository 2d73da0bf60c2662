package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestJoinFailureSentence: a join that fails ends the client with exit code 1 and one
// sentence that names the address once and says what to try; the chain is in the log
// (-v), not in that sentence.
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
			began := time.Now()
			client := start(t, tanks, append(c.args, "-size", "320x200", "-v")...)
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
			if took := time.Since(began); took > 15*time.Second {
				t.Errorf("the client took %v to give up", took)
			}
		})
	}
}
