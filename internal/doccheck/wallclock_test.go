package doccheck

import (
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
	"unicode"
	"unicode/utf8"
)

// waits are the calls that read the wall clock or wait on it: the time package's,
// and internal/poll's, which sleeps between checks.
var waits = map[string]map[string]bool{
	"time": {"Sleep": true, "Now": true, "Since": true, "Until": true, "After": true, "AfterFunc": true,
		"Tick": true, "NewTimer": true, "NewTicker": true},
	"poll": {"Within": true, "Until": true},
}

// wallClockTests returns, of the top-level tests in the test files files (one
// package's: its internal and external tests), those that run on the wall clock,
// and how many tests there are. A test runs on the wall clock when its body, or a
// function of those files that it calls (at any depth), makes a call of waits;
// what runs in a synctest bubble (the function passed to synctest.Test) reads the
// bubble's fake clock and does not count. Reaching the clock through the code
// under test (a host's run loop) is not seen: the count is of the tests'
// own waits.
func wallClockTests(files []*ast.File) (wall []string, total int) {
	funcs := map[string]*ast.FuncDecl{}
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Body != nil {
				funcs[fd.Name.Name] = fd
			}
		}
	}
	const (
		unknown = iota
		visiting
		waiting
		not
	)
	state := map[string]int{}
	var waitsIn func(name string) bool
	waitsIn = func(name string) bool {
		switch state[name] {
		case visiting, not:
			return false
		case waiting:
			return true
		}
		state[name] = visiting
		found := false
		ast.Inspect(funcs[name].Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if found || !ok {
				return !found
			}
			switch fn := call.Fun.(type) {
			case *ast.SelectorExpr:
				if pkg, ok := fn.X.(*ast.Ident); ok {
					if pkg.Name == "synctest" && fn.Sel.Name == "Test" {
						return false // the bubble's function runs on its fake clock
					}
					found = waits[pkg.Name][fn.Sel.Name]
				}
			case *ast.Ident:
				_, local := funcs[fn.Name]
				found = local && waitsIn(fn.Name)
			}
			return !found
		})
		state[name] = not
		if found {
			state[name] = waiting
		}
		return found
	}
	for name, fd := range funcs {
		rest, ok := strings.CutPrefix(name, "Test")
		// go test's rule: what follows "Test" does not start with a lower-case letter
		// (Test_x and Test2 are tests).
		first, _ := utf8.DecodeRuneInString(rest)
		if !ok || name == "TestMain" || len(fd.Type.Params.List) != 1 || unicode.IsLower(first) {
			continue
		}
		total++
		if waitsIn(name) {
			wall = append(wall, name)
		}
	}
	slices.Sort(wall)
	return wall, total
}

// TestWallClockTestsBounded counts the module's tests that run on the wall clock,
// as docs/testing.md defines them, and fails when there are more than the page
// says: a new test that waits on time runs in a synctest bubble or on a manual
// clock, unless it tests a real socket or process (and then the page's figure
// goes up with a reason).
func TestWallClockTestsBounded(t *testing.T) {
	root := moduleRoot(t)
	text, err := os.ReadFile(filepath.Join(root, "docs", "testing.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(\d+)\s+of\s+the\s+module's\s+(\d+)\s+tests\s+run\s+on\s+the\s+wall\s+clock`).FindSubmatch(text)
	if m == nil {
		t.Fatal(`docs/testing.md states no "N of the module's M tests run on the wall clock"`)
	}
	bound, _ := strconv.Atoi(string(m[1]))
	pkgs := map[string][]*ast.File{}
	fset := token.NewFileSet()
	err = walkGoFiles(root, func(p string) error {
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(p))
		key := dir + " " + strings.TrimSuffix(f.Name.Name, "_test")
		pkgs[key] = append(pkgs[key], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var wall []string
	total := 0
	for key, files := range pkgs {
		w, n := wallClockTests(files)
		total += n
		for _, name := range w {
			wall = append(wall, strings.Fields(key)[0]+" "+name)
		}
	}
	slices.Sort(wall)
	t.Logf("%d of %d tests run on the wall clock", len(wall), total)
	if len(wall) > bound {
		t.Errorf("%d of %d tests run on the wall clock, more than the %d docs/testing.md allows:\n%s",
			len(wall), total, bound, strings.Join(wall, "\n"))
	}
}

// TestWallClockCountCaught: the count sees a test's own waits and its helpers',
// and leaves out what a bubble runs.
func TestWallClockCountCaught(t *testing.T) {
	const src = `package p

func TestSleeps(t *testing.T)       { time.Sleep(time.Second) }
func TestPolls(t *testing.T)        { waitLong(t) }
func TestBubble(t *testing.T)       { synctest.Test(t, func(t *testing.T) { time.Sleep(time.Hour) }) }
func TestManual(t *testing.T)       { clk.Advance(time.Second) }
func TestRecursive(t *testing.T)    { again(t) }
func Testlower(t *testing.T)        { time.Sleep(time.Second) }
func Test_under(t *testing.T)      { time.Sleep(time.Second) }
func Test2(t *testing.T)            { time.Now() }
func BenchmarkSleeps(b *testing.B)  { time.Sleep(time.Second) }
func waitLong(t *testing.T)         { helper() }
func helper()                       { poll.Until(nil, 0, "", nil) }
func again(t *testing.T)            { again(t) }
`
	f, err := parser.ParseFile(token.NewFileSet(), "p_test.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	wall, total := wallClockTests([]*ast.File{f})
	if want := []string{"Test2", "TestPolls", "TestSleeps", "Test_under"}; !slices.Equal(wall, want) || total != 7 {
		t.Errorf("wall-clock tests %v of %d, want %v of 7", wall, total, want)
	}
}
