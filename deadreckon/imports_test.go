package deadreckon

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImports lists every package deadreckon builds from (go list -deps) and fails on
// any outside the standard library but mathgl, for its vectors and quaternions, and
// the module's geometry helpers, which import only the standard library and mathgl
// themselves: an adopter takes the library without the game.
func TestImports(t *testing.T) {
	allowed := map[string]bool{
		"github.com/go-gl/mathgl/mgl64":                true,
		"github.com/treadline/treadline/internal/geom": true,
		"github.com/treadline/treadline/deadreckon":    true,
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to list the imports with: %v", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatal("go list -deps listed nothing, not even deadreckon")
	}
	for _, p := range deps {
		if !allowed[p] {
			t.Errorf("deadreckon depends on %s; it may use only the standard library, mathgl and internal/geom", p)
		}
	}
}
