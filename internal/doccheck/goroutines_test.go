package doccheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// reckonerDir is the one package of the module whose goroutines the single-goroutine
// packages may link: deadreckon starts goroutines only in its Reckoner, so a package
// that never names the Reckoner starts none through it.
const reckonerDir = "deadreckon"

// singleGoroutine reads from the script src the packages it runs without the race
// detector because their code under test starts no goroutine (the shell variable
// single: folders as ./a/b) and the pattern of their tests that do start one and run
// under the detector (the variable concurrent, a -run pattern).
func singleGoroutine(src string) (dirs []string, concurrent *regexp.Regexp, err error) {
	value := func(name string) (string, error) {
		m := regexp.MustCompile(`(?m)^` + name + `='([^']*)'$`).FindStringSubmatch(src)
		if m == nil {
			return "", fmt.Errorf("no line %s='…' in the script", name)
		}
		return m[1], nil
	}
	list, err := value("single")
	if err != nil {
		return nil, nil, err
	}
	pattern, err := value("concurrent")
	if err != nil {
		return nil, nil, err
	}
	for _, d := range strings.Fields(list) {
		dirs = append(dirs, strings.TrimPrefix(d, "./"))
	}
	concurrent, err = regexp.Compile(pattern)
	return dirs, concurrent, err
}

// goroutineStarts returns where the Go files of dir (tests too when tests is set) start
// a goroutine, run a test in parallel or in a synctest bubble, or name the Reckoner,
// outside the functions whose names allowed matches; and the module's packages they
// import (folders below root, from module, the module's path).
func goroutineStarts(root, module, dir string, tests bool, allowed *regexp.Regexp) (found, imports []string, err error) {
	files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
	if err != nil {
		return nil, nil, err
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if !tests && strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if rest, ok := strings.CutPrefix(p, module+"/"); ok && !slices.Contains(imports, rest) {
				imports = append(imports, rest)
			}
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && allowed != nil && allowed.MatchString(fn.Name.Name) {
				continue
			}
			ast.Inspect(d, func(n ast.Node) bool {
				what := ""
				switch n := n.(type) {
				case *ast.GoStmt:
					what = "starts a goroutine"
				case *ast.SelectorExpr:
					if n.Sel.Name == "Parallel" {
						what = "runs a test in parallel"
					} else if x, ok := n.X.(*ast.Ident); ok && x.Name == "synctest" {
						what = "runs a synctest bubble"
					}
				case *ast.Ident:
					if strings.Contains(n.Name, "Reckoner") && dir != reckonerDir {
						what = "uses deadreckon's Reckoner, which starts goroutines"
					}
				}
				if what != "" {
					rel, _ := filepath.Rel(root, fset.Position(n.Pos()).String())
					found = append(found, rel+": "+what)
				}
				return true
			})
		}
	}
	return found, imports, nil
}

// TestSingleGoroutinePackages: the packages scripts/test runs without the race
// detector (single) start no goroutine, in their code, their tests or the module's
// packages they import (deadreckon's Reckoner aside, which none of them names), but
// in the tests it runs under the detector (concurrent). A goroutine added to one of
// them fails here until it is taken off the list or its test joins concurrent.
func TestSingleGoroutinePackages(t *testing.T) {
	root := moduleRoot(t)
	script, err := os.ReadFile(filepath.Join(root, "scripts", "test"))
	if err != nil {
		t.Fatal(err)
	}
	dirs, concurrent, err := singleGoroutine(string(script))
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	module := regexp.MustCompile(`(?m)^module (\S+)$`).FindStringSubmatch(string(mod))[1]
	if len(dirs) < 2 || !slices.Contains(dirs, "internal/doccheck") {
		t.Fatalf("single lists %v: the script's line is not read right", dirs)
	}
	checked := map[string]bool{}
	for _, dir := range dirs {
		// The package with its tests, then the module's packages it imports, without theirs.
		queue, tests := []string{dir}, true
		for len(queue) > 0 {
			d := queue[0]
			queue = queue[1:]
			if checked[d] && !tests {
				continue
			}
			checked[d] = true
			found, imports, err := goroutineStarts(root, module, d, tests, concurrent)
			if err != nil {
				t.Fatal(err)
			}
			tests = false
			if d == reckonerDir {
				found = nil // its goroutines are the Reckoner's, which the Reckoner check above catches
			}
			for _, f := range found {
				t.Errorf("%s runs without the race detector (scripts/test's single), yet %s", dir, f)
			}
			queue = append(queue, imports...)
		}
	}
}

// TestGoroutineStartsCaught: the check finds each way a package starts goroutines, and
// leaves the tests the script names alone.
func TestGoroutineStartsCaught(t *testing.T) {
	for _, c := range []struct {
		name, src string
		found     int
	}{
		{"none", "package p\n\nfunc f() int { return 1 }\n", 0},
		{"go statement", "package p\n\nfunc f() { go f() }\n", 1},
		{"parallel", "package p\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) { t.Parallel() }\n", 1},
		{"synctest", "package p\n\nimport (\"testing\"; \"testing/synctest\")\n\nfunc TestX(t *testing.T) { synctest.Test(t, nil) }\n", 1},
		{"reckoner", "package p\n\nimport \"m/deadreckon\"\n\nvar r = deadreckon.NewReckoner\n", 1},
		{"allowed test", "package p\n\nfunc TestTwo() { go TestTwo() }\n", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.MkdirAll(filepath.Join(root, "p"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, "p", "p.go"), []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			found, _, err := goroutineStarts(root, "m", "p", true, regexp.MustCompile(`^TestTwo$`))
			if err != nil {
				t.Fatal(err)
			}
			if len(found) != c.found {
				t.Errorf("found %v, want %d", found, c.found)
			}
		})
	}
	dirs, concurrent, err := singleGoroutine("x\nsingle='./a ./b/c'\nconcurrent='^(TestX)$'\n")
	if err != nil || !slices.Equal(dirs, []string{"a", "b/c"}) || !concurrent.MatchString("TestX") {
		t.Errorf("read %v, %v, %v from the script; want [a b/c] and a pattern matching TestX", dirs, concurrent, err)
	}
}
