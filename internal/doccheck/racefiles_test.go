package doccheck

import (
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"
)

// raceOnlyCode returns what the file src holds besides constant declarations when it
// is built only under the race detector (a //go:build line that the race tag alone
// decides, as "race"). scripts/test runs go vet without -race and turns off the vet
// pass go test makes under it, so a race-only file is vetted only as far as go vet
// reads ignored files (their build lines): it may hold constants, which no vet check
// looks into, and nothing else.
func raceOnlyCode(name string, src any) (raceOnly bool, code []string, err error) {
	fset := token.NewFileSet()
	// The build lines come before the package clause: the rest of a file is parsed
	// only when it is built under the race detector alone, a few files of hundreds.
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		return false, nil, err
	}
	for _, cg := range f.Comments {
		if cg.Pos() > f.Package {
			break
		}
		for _, c := range cg.List {
			if !constraint.IsGoBuild(c.Text) {
				continue
			}
			expr, err := constraint.Parse(c.Text)
			if err != nil {
				return false, nil, err
			}
			with := expr.Eval(func(tag string) bool { return tag == "race" || tag == "linux" || tag == "amd64" })
			without := expr.Eval(func(tag string) bool { return tag == "linux" || tag == "amd64" })
			raceOnly = with && !without
		}
	}
	if !raceOnly {
		return false, nil, nil
	}
	if f, err = parser.ParseFile(fset, name, src, parser.SkipObjectResolution); err != nil {
		return false, nil, err
	}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
			continue
		}
		code = append(code, fset.Position(d.Pos()).String())
	}
	return true, code, nil
}

// TestRaceOnlyFilesHoldConstants: the files built only under the race detector hold
// constants alone (see raceOnlyCode).
func TestRaceOnlyFilesHoldConstants(t *testing.T) {
	root := moduleRoot(t)
	n := 0
	err := walkGoFiles(root, func(p string) error {
		raceOnly, code, err := raceOnlyCode(p, nil)
		if err != nil {
			return err
		}
		if raceOnly {
			n++
		}
		for _, at := range code {
			rel, _ := filepath.Rel(root, at)
			t.Errorf("%s: a file built only under the race detector holds more than constants, which go vet without -race would not check", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d files built only under the race detector", n)
}

// TestRaceOnlyCodeCaught: the check tells race-only files from others and finds
// what is not a constant in them.
func TestRaceOnlyCodeCaught(t *testing.T) {
	for _, c := range []struct {
		name, src string
		raceOnly  bool
		code      int
	}{
		{"constant", "//go:build race\n\npackage p\n\nconst raceEnabled = true\n", true, 0},
		{"function", "//go:build race\n\npackage p\n\nconst a = 1\n\nfunc f() {}\n", true, 1},
		{"variable and import", "//go:build race\n\npackage p\n\nimport \"fmt\"\n\nvar x = fmt.Sprint()\n", true, 2},
		{"not race", "//go:build !race\n\npackage p\n\nfunc f() {}\n", false, 0},
		{"no constraint", "package p\n\nfunc f() {}\n", false, 0},
		{"race and linux", "//go:build race && linux\n\npackage p\n\nfunc f() {}\n", true, 1},
		{"race or other", "//go:build race || windows\n\npackage p\n\nfunc f() {}\n", true, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			raceOnly, code, err := raceOnlyCode("x.go", c.src)
			if err != nil {
				t.Fatal(err)
			}
			if raceOnly != c.raceOnly || len(code) != c.code {
				t.Errorf("race only %v, %d declarations not constants %v; want %v, %d", raceOnly, len(code), code, c.raceOnly, c.code)
			}
		})
	}
}
