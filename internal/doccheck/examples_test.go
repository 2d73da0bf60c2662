package doccheck

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// idleExamples returns the Example functions declared in the test file src that go
// test would not run. go test runs an Example only when it ends in an "// Output:"
// (or "// Unordered output:") comment of its own; one whose Output line merged into
// the comment above it, or that has none, still compiles but never runs. The rule is
// go test's own: it keeps the examples go/doc finds with an output, empty or not.
// A function named Example… that go/doc does not take for an example (one with
// parameters or results, or named Examples) is reported too: it never runs either.
// It returns too how many of the file's examples run.
func idleExamples(name string, src any) (idle []string, running int, err error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, 0, err
	}
	runs := map[string]bool{}
	for _, e := range doc.Examples(f) {
		if e.Output != "" || e.EmptyOutput {
			runs["Example"+e.Name] = true
		}
	}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Example") && !runs[fn.Name.Name] {
			idle = append(idle, fn.Name.Name)
		}
	}
	return idle, len(runs), nil
}

// TestEveryExampleRuns: every Example function in the module's test files runs
// under go test (has an // Output: comment of its own), so that each is checked,
// not only compiled.
func TestEveryExampleRuns(t *testing.T) {
	root := moduleRoot(t)
	examples := 0
	err := walkGoFiles(root, func(p string) error {
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		idle, running, err := idleExamples(p, nil)
		if err != nil {
			return err
		}
		examples += running
		rel, _ := filepath.Rel(root, p)
		for _, name := range idle {
			t.Errorf("%s: %s never runs: it has no // Output: comment of its own", rel, name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A walk that read no file would pass: the module has examples.
	if examples == 0 {
		t.Fatal("no Example functions found in the module's test files")
	}
	t.Logf("%d Examples, each with an output to check", examples)
}

// TestIdleExamplesCaught: the check finds each kind of example go test compiles but
// never runs, and passes the ones it runs.
func TestIdleExamplesCaught(t *testing.T) {
	for _, c := range []struct {
		name, body string
		idle       []string
		running    int
	}{
		{"output", "func Example() {\n\tfmt.Println(1)\n\t// Output: 1\n}\n", nil, 1},
		{"empty output", "func ExampleF() {\n\tf()\n\t// Output:\n}\n", nil, 1},
		{"unordered", "func ExampleF_two() {\n\tfmt.Println(1)\n\tfmt.Println(2)\n\t// Unordered output:\n\t// 2\n\t// 1\n}\n", nil, 1},
		{"no output", "func ExampleF() {\n\tfmt.Println(1)\n}\n", []string{"ExampleF"}, 0},
		{"output merged into the comment above", "func ExampleF() {\n\tfmt.Println(1)\n\t// prints one. Output: 1\n}\n", []string{"ExampleF"}, 0},
		{"parameters", "func ExampleF(n int) {\n\tfmt.Println(n)\n\t// Output: 1\n}\n", []string{"ExampleF"}, 0},
		{"one of two", "func ExampleF() {\n\tfmt.Println(1)\n\t// Output: 1\n}\n\nfunc ExampleG() {\n\tg()\n}\n", []string{"ExampleG"}, 1},
		{"not an example", "func Examples() {}\n\nfunc (x) ExampleF() {}\n", []string{"Examples"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := "package p_test\n\nimport \"fmt\"\n\nvar _ = fmt.Println\n\n" + c.body
			idle, running, err := idleExamples("x_test.go", src)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(idle, c.idle) || running != c.running {
				t.Errorf("idle %v, %d running; want %v, %d", idle, running, c.idle, c.running)
			}
		})
	}
}
