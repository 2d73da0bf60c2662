package doccheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// moduleRoot returns the directory holding go.mod, above the test's directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// modulePath reads the module's path from go.mod.
func modulePath(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindSubmatch(b)
	if m == nil {
		t.Fatal("go.mod names no module")
	}
	return string(m[1])
}

// skipDir reports whether the walk from root skips directory p: hidden directories
// and testdata hold no pages and no packages of the module.
func skipDir(root, p string, d fs.DirEntry) bool {
	return d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata")
}

// walkGoFiles calls fn with the path of every Go file under root, test files
// included, hidden directories and testdata skipped, and stops at fn's first error.
func walkGoFiles(root string, fn func(p string) error) error { return walkFiles(root, ".go", fn) }

// walkFiles calls fn with the path of every file under root whose name ends in
// suffix, hidden directories and testdata skipped, and stops at fn's first error.
func walkFiles(root, suffix string, fn func(p string) error) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if skipDir(root, p, d) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, suffix) {
			return nil
		}
		return fn(p)
	})
}

// pages reads every Markdown file of the module, hidden directories and testdata
// skipped.
func pages(t *testing.T, root string) []page {
	t.Helper()
	var out []page
	err := walkFiles(root, ".md", func(p string) error {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		out = append(out, newPage(filepath.ToSlash(rel), string(b)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// goPackage is what the checks need of one package directory: its name, its
// imports, the flags its non-test files define and the test functions of its test
// files.
type goPackage struct {
	name    string
	imports []string
	flags   []string
	funcs   []string
}

// flagMethods are the flag.FlagSet methods (and package flag functions) that define
// a flag; the flag's name is the first string literal among their first two
// arguments.
var flagMethods = []string{"Bool", "BoolVar", "BoolFunc", "Duration", "DurationVar", "Float64", "Float64Var",
	"Func", "Int", "IntVar", "Int64", "Int64Var", "String", "StringVar", "TextVar", "Uint", "UintVar",
	"Uint64", "Uint64Var", "Var"}

// parsePackage reads the Go files of dir.
func parsePackage(dir string) (goPackage, error) {
	var pkg goPackage
	entries, err := os.ReadDir(dir)
	if err != nil {
		return pkg, err
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			return pkg, err
		}
		if strings.HasSuffix(e.Name(), "_test.go") {
			for _, d := range f.Decls {
				if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && testNameRE.MatchString(fn.Name.Name) {
					pkg.funcs = append(pkg.funcs, fn.Name.Name)
				}
			}
			continue
		}
		pkg.name = f.Name.Name
		for _, imp := range f.Imports {
			if p, err := strconv.Unquote(imp.Path.Value); err == nil {
				pkg.imports = append(pkg.imports, p)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !slices.Contains(flagMethods, sel.Sel.Name) {
				return true
			}
			for _, a := range call.Args[:min(2, len(call.Args))] {
				if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil {
						pkg.flags = append(pkg.flags, s)
					}
					break
				}
			}
			return true
		})
	}
	return pkg, nil
}

// parsedModule parses every package of the module at root once for the test binary
// (by directory, slash-separated from root): the checks that read them share one
// parse of the whole module, seconds of CPU each.
func parsedModule(root string) (map[string]goPackage, error) {
	parsed.once.Do(func() {
		pkgs := map[string]goPackage{}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if skipDir(root, p, d) {
				return filepath.SkipDir
			}
			if !d.IsDir() {
				return nil
			}
			pkg, err := parsePackage(p)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			pkgs[filepath.ToSlash(rel)] = pkg
			return nil
		})
		parsed.root, parsed.pkgs, parsed.err = root, pkgs, err
	})
	if parsed.root != root {
		return nil, fmt.Errorf("the module was parsed at %s, not %s", parsed.root, root)
	}
	return parsed.pkgs, parsed.err
}

// parsed holds parsedModule's one parse.
var parsed struct {
	once sync.Once
	root string
	pkgs map[string]goPackage
	err  error
}

// moduleFacts gathers the facts of the module at root: its files, the headings of
// its pages, its commands with the flags of each (defined in the command or in any
// package of the module it imports, directly or not) and its test functions.
func moduleFacts(t *testing.T, root string, pgs []page) facts {
	t.Helper()
	mod := modulePath(t, root)
	pkgs, err := parsedModule(root)
	if err != nil {
		t.Fatal(err)
	}
	f := facts{
		exists: func(p string) bool {
			_, err := os.Stat(filepath.Join(root, filepath.FromSlash(p)))
			return err == nil
		},
		anchors:  map[string]map[string]bool{},
		commands: map[string]map[string]bool{},
		funcsIn:  map[string][]string{},
		imports:  map[string][]string{},
	}
	for _, pg := range pgs {
		f.anchors[pg.path] = headingAnchors(pg)
	}
	for dir, pkg := range pkgs {
		f.funcs = append(f.funcs, pkg.funcs...)
		f.funcsIn[dir] = pkg.funcs
		if pkg.name != "" {
			var imps []string
			for _, imp := range pkg.imports {
				if rel, ok := strings.CutPrefix(imp, mod+"/"); ok && !slices.Contains(imps, rel) {
					imps = append(imps, rel)
				}
			}
			f.imports[dir] = imps
		}
		name, ok := strings.CutPrefix(dir, "cmd/")
		if !ok || strings.Contains(name, "/") || pkg.name != "main" {
			continue
		}
		flags := map[string]bool{}
		seen := map[string]bool{}
		var visit func(dir string)
		visit = func(dir string) {
			if seen[dir] {
				return
			}
			seen[dir] = true
			for _, fl := range pkgs[dir].flags {
				flags[fl] = true
			}
			for _, imp := range pkgs[dir].imports {
				if rel, ok := strings.CutPrefix(imp, mod+"/"); ok {
					visit(rel)
				}
			}
		}
		visit(dir)
		f.commands[name] = flags
	}
	return f
}

// TestReadmeIsShort holds README.md to MaxReadmeLines lines.
func TestReadmeIsShort(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(moduleRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > MaxReadmeLines {
		t.Errorf("README.md has %d lines, want at most %d: move detail into docs/", n, MaxReadmeLines)
	}
}

// TestMarkdownNamesWhatExists runs every check over every Markdown file of the
// module.
func TestMarkdownNamesWhatExists(t *testing.T) {
	root := moduleRoot(t)
	pgs := pages(t, root)
	if !slices.ContainsFunc(pgs, func(p page) bool { return p.path == "README.md" }) {
		t.Fatal("no README.md found: the walk is wrong")
	}
	f := moduleFacts(t, root, pgs)
	for _, cmd := range []string{"tanks", "tankhost", "tankload", "drlab", "mapgen"} {
		if len(f.commands[cmd]) == 0 {
			t.Fatalf("found no flags of command %s: the flag scan is wrong", cmd)
		}
	}
	for _, pg := range pgs {
		for _, check := range []func(page, facts) []string{checkLinks, checkCommands, checkSpans, checkLayout} {
			for _, msg := range check(pg, f) {
				t.Error(msg)
			}
		}
	}
}

// TestFlagScanFindsSharedFlags: the flags a command takes from a package it imports
// (the host's defences, the identity file) count as its own.
func TestFlagScanFindsSharedFlags(t *testing.T) {
	root := moduleRoot(t)
	f := moduleFacts(t, root, nil)
	for _, c := range []struct{ cmd, flag string }{
		{"tankhost", "listen"}, {"tankhost", "max-handshakes"}, {"tankhost", "identity"},
		{"tanks", "retry-above"}, {"tanks", "join"}, {"drlab", "duel"}, {"mapgen", "samples"},
	} {
		if !f.commands[c.cmd][c.flag] {
			t.Errorf("%s: flag -%s not found", c.cmd, c.flag)
		}
	}
	if f.commands["mapgen"]["listen"] {
		t.Error("mapgen: -listen found, though mapgen imports nothing that defines it")
	}
}
