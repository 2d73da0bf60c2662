// Package progtest links the project's programs for the tests that run them.
package progtest

import (
	"fmt"
	"os/exec"
)

// Build links the program of package pkg (a path as go run takes it, relative to the
// calling test's package folder) to the file out. It links through go run, which
// keeps what it links in the build cache where go build does not, and hands the
// cached program to cp: every test process, and every later run while the sources
// stay the same, shares one link of each program (seconds of CPU). go test puts its
// own toolchain first on PATH. The error carries go's output.
func Build(pkg, out string) error {
	if b, err := exec.Command("go", "run", "-exec", "cp --", pkg, out).CombinedOutput(); err != nil {
		return fmt.Errorf("build %s: %v\n%s", pkg, err, b)
	}
	return nil
}
