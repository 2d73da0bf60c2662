package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startProfile starts writing the process's CPU profile to path (-cpuprofile) and
// returns what stops it and closes the file. The profile covers the whole run: in a
// practice the in-process host and its bots too, so a look at the client's own
// work focuses on the window loop (go tool pprof -focus client.RunGame).
func startProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile %s: %w", path, err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "tanks: cpu profile:", err)
		}
	}, nil
}
