package session

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/physics"
)

// TestPracticeSurvivesStall: a practice match whose whole process stops for longer
// than the network timeout (SIGSTOP, then SIGCONT from a helper, as a loaded machine
// or a suspended laptop would) goes on afterwards: its host runs in the same process,
// so it is never declared lost and never drops its own player.
func TestPracticeSurvivesStall(t *testing.T) {
	if testing.Short() {
		t.Skip("stops the test process for several seconds; skipped with -short")
	}
	m, sess, err := Practice(context.Background(), PracticeConfig{Match: game.Config{Map: smallMap(t), Name: "stalled"}, Bots: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	runFor(t, time.Second, physics.Input{Throttle: 1}, m)

	stall := net.DefaultTimeout + 1500*time.Millisecond
	pid := os.Getpid()
	wake := exec.Command("sh", "-c", "sleep "+strconv.FormatFloat(stall.Seconds(), 'f', 1, 64)+"; kill -CONT "+strconv.Itoa(pid))
	if err := wake.Start(); err != nil {
		t.Skipf("cannot start the waking helper: %v", err)
	}
	start := time.Now()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		wake.Process.Kill()
		t.Skipf("cannot stop this process: %v", err)
	}
	wake.Wait()
	if slept := time.Since(start); slept < net.DefaultTimeout {
		t.Fatalf("stopped for only %v; the stall must outlast the %v timeout", slept, net.DefaultTimeout)
	}
	runFor(t, 3*time.Second, physics.Input{Throttle: 1}, m) // fails on any Step error
	if err := m.Err(); err != nil {
		t.Fatalf("practice match after a %v stall: %v", stall, err)
	}
	var snap game.Snapshot
	m.Snapshot(&snap)
	if len(snap.Tanks) != 2 {
		t.Errorf("after the stall the player sees %d tanks, want itself and the bot", len(snap.Tanks))
	}
}
