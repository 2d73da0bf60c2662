// Package clitest holds what the commands' tests share.
package clitest

import (
	"fmt"
	"os"
	"testing"
)

// Main runs a command's tests with the user's config directory (host identity, known
// hosts, settings) pointed at a temporary one, for the test process and the programs
// it starts, so tests never read or change the real one. Call it from TestMain.
func Main(m *testing.M) {
	dir, err := os.MkdirTemp("", "treadline-config-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_CONFIG_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
