// Package clitest holds what the commands' tests share.
package clitest

import (
	"fmt"
	stdnet "net"
	"os"
	"testing"
)

// Main runs a command's tests with the user's config directory (host identity, known
// hosts, settings) pointed at a temporary one, and the local network's announcements
// kept to the loopback interface, for the test process and the programs it starts,
// so tests never read or change the real ones nor reach a real network. Call it from
// TestMain.
func Main(m *testing.M) {
	dir, err := os.MkdirTemp("", "treadline-config-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_CONFIG_HOME", dir)
	// Hosts announce, and -list looks, on the loopback interface only: tests send
	// nothing onto a real network.
	os.Setenv("TREADLINE_LAN", Loopback())
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Loopback returns the name of the loopback interface ("lo" on Linux), or "off"
// when there is none.
func Loopback() string {
	ifs, _ := stdnet.Interfaces()
	for _, ifi := range ifs {
		if ifi.Flags&stdnet.FlagLoopback != 0 && ifi.Flags&stdnet.FlagUp != 0 {
			return ifi.Name
		}
	}
	return "off"
}
