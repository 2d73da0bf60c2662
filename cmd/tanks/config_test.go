package main

import (
	"fmt"
	"os"
	"testing"
)

// TestMain points the user's config directory (host identity, known hosts, settings)
// at a temporary one, for this process and the programs the tests start, so tests
// never read or change the real one.
func TestMain(m *testing.M) {
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
