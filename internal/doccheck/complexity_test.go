package doccheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// complexity is a function's cyclomatic complexity as gocyclo counts it: one, plus
// one for each if, for and range statement, each case and select clause other than
// default, and each && and ||, function literals in its body included.
func complexity(fn *ast.FuncDecl) int {
	n := 1
	ast.Inspect(fn, func(node ast.Node) bool {
		switch s := node.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			n++
		case *ast.CaseClause:
			if s.List != nil {
				n++
			}
		case *ast.CommClause:
			if s.Comm != nil {
				n++
			}
		case *ast.BinaryExpr:
			if s.Op == token.LAND || s.Op == token.LOR {
				n++
			}
		}
		return true
	})
	return n
}

// funcName is fn's name as gocyclo prints it: (*T).M, T.M or F.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	star := ""
	if s, ok := t.(*ast.StarExpr); ok {
		star, t = "*", s.X
	}
	switch r := t.(type) {
	case *ast.IndexExpr:
		t = r.X
	case *ast.IndexListExpr:
		t = r.X
	}
	id, _ := t.(*ast.Ident)
	if id == nil {
		return fn.Name.Name
	}
	if star != "" {
		return fmt.Sprintf("(*%s).%s", id.Name, fn.Name.Name)
	}
	return id.Name + "." + fn.Name.Name
}

// overComplex returns, for the Go source src (named name), each function whose
// complexity is over max, as "file:line name complexity".
func overComplex(name string, src any, max int) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var over []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		if c := complexity(fn); c > max {
			over = append(over, fmt.Sprintf("%s %s %d", fset.Position(fn.Pos()), funcName(fn), c))
		}
	}
	return over, nil
}

// TestNoFunctionTooComplex: no function of the module outside its tests is over
// MaxComplexity.
func TestNoFunctionTooComplex(t *testing.T) {
	root := moduleRoot(t)
	files := 0
	err := walkGoFiles(root, func(p string) error {
		if strings.HasSuffix(p, "_test.go") {
			return nil
		}
		files++
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		over, err := overComplex(filepath.ToSlash(rel), src, MaxComplexity)
		if err != nil {
			return err
		}
		for _, o := range over {
			t.Errorf("%s: over %d; split it into functions that each do one thing", o, MaxComplexity)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d Go files under %s; the module has hundreds", files, root)
	}
}

// TestComplexityCounted: the count is gocyclo's on each kind of branch, and a
// function over the limit is named with its place and count.
func TestComplexityCounted(t *testing.T) {
	const src = `package p

func plain() {}

func branches(a, b bool, xs []int, c chan int) int {
	if a && b || !a { // if, &&, ||
		return 1
	}
	for i := 0; i < 2; i++ { // for
	}
	for range xs { // range
	}
	switch { // two cases; default not counted
	case a:
	case b:
	default:
	}
	select { // one clause; default not counted
	case <-c:
	default:
	}
	f := func() bool { return a && b } // the literal's && counts
	_ = f
	return 0
}

type T[E any] struct{}

func (t *T[E]) m(a bool) {
	if a {
	}
}

func (T[E]) v() {}
`
	want := map[string]int{"plain": 1, "branches": 10, "(*T).m": 2, "T.v": 1}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok {
			got[funcName(fn)] = complexity(fn)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("complexities %v, want %v", got, want)
	}
	over, err := overComplex("p.go", src, 9)
	if err != nil {
		t.Fatal(err)
	}
	if len(over) != 1 || over[0] != "p.go:5:1 branches 10" {
		t.Errorf("over 9: %q, want [p.go:5:1 branches 10]", over)
	}
}
