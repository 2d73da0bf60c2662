package doccheck

import (
	"slices"
	"strings"
	"testing"
)

// fixtureFacts is a small module: two pages, one command with two flags, two tests.
func fixtureFacts(pgs ...page) facts {
	files := []string{"README.md", "docs/a.md", "docs", "assets/x.png", "scripts/run", "game", "net", "net/wire", "cmd/tanks"}
	f := facts{
		exists:   func(p string) bool { return slices.Contains(files, p) },
		anchors:  map[string]map[string]bool{},
		commands: map[string]map[string]bool{"tanks": {"host": true, "bots": true}},
		funcs:    []string{"TestFoo", "BenchmarkBar", "FuzzBaz", "TestQux"},
		funcsIn:  map[string][]string{"game": {"TestFoo", "BenchmarkBar", "FuzzBaz"}, "net/wire": {"TestQux"}},
	}
	for _, pg := range pgs {
		f.anchors[pg.path] = headingAnchors(pg)
	}
	return f
}

// TestChecksCatchEachMistake: each line of a page holds one mistake the checks must
// report, and a good twin they must not.
func TestChecksCatchEachMistake(t *testing.T) {
	for _, c := range []struct {
		name, text string
		bad        bool
	}{
		{"link to a file", "see [a](docs/a.md)", false},
		{"link to no file", "see [a](docs/b.md)", true},
		{"image", "![x](assets/x.png)", false},
		{"missing image", "![x](assets/y.png)", true},
		{"link to a heading", "see [a](docs/a.md#the-dead-reckoning-lab-drlab)", false},
		{"link to no heading", "see [a](docs/a.md#no-such-part)", true},
		{"link to a repeated heading", "see [a](docs/a.md#notes-1)", false},
		{"link leaving the repository", "see [a](../x.md)", true},
		{"web link", "see [a](https://example.com/x.md)", false},
		{"link in code", "`[a](docs/b.md)`", false},
		{"go run", "    go run ./cmd/tanks -host :7777 -bots 4   # -nonsense in a comment", false},
		{"go run, no command", "    go run ./cmd/tank -host :7777", true},
		{"go run, no flag", "    go run ./cmd/tanks -hots :7777", true},
		{"go run, value like a flag", "    go run ./cmd/tanks -bots -1", false},
		{"go run, -h", "`go run ./cmd/tanks -h`", false},
		{"program span", "run `tanks -host :7777` there", false},
		{"program span, no flag", "run `tanks -listen :7777` there", true},
		{"lone flag", "the flag `-bots`", false},
		{"lone unknown flag", "the flag `-bot`", true},
		{"test named", "`TestFoo` and `BenchmarkBar/sub`", false},
		{"test not found", "`TestFooo` asserts", true},
		{"go test package", "    go test -run TestFoo ./game/...", false},
		{"go test no package", "    go test -run TestFoo ./gaem", true},
		{"go test pattern", "    go test -run '^$' -bench 'Bar|Nothing' ./game", false},
		{"go test pattern matches nothing", "    go test -run 'Nothing' ./game", true},
		{"go test bench pattern of a test", "    go test -run '^$' -bench Foo ./game", true},
		{"go test pattern in a tree", "    go test -run TestQux ./net/...", false},
		{"go test pattern in the whole module", "    go test -run TestQux ./...", false},
		{"go test pattern of another package", "    go test -run TestQux ./game", true},
		{"script", "    scripts/run", false},
		{"missing script", "    scripts/play", true},
		{"repo file", "see `assets/x.png`", false},
		{"missing repo file", "see `assets/z.png`", true},
		{"not a repo file", "see `$XDG_CONFIG_HOME/treadline/settings.json` and `/dev/snd/x.png`", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			docs := newPage("docs/a.md", "# The dead-reckoning lab (`drlab`)\n\n## Notes\n\n## Notes\n")
			pg := newPage("README.md", "Title\n\n"+c.text+"\n")
			f := fixtureFacts(docs, pg)
			var got []string
			for _, check := range []func(page, facts) []string{checkLinks, checkCommands, checkSpans} {
				got = append(got, check(pg, f)...)
			}
			if c.bad && len(got) == 0 {
				t.Errorf("%q: no finding, want one", c.text)
			}
			if !c.bad && len(got) > 0 {
				t.Errorf("%q: findings %s, want none", c.text, strings.Join(got, "; "))
			}
		})
	}
}

// TestCodeBlocks: fenced blocks and indented blocks after a blank line are code; an
// indented list continuation is not.
func TestCodeBlocks(t *testing.T) {
	pg := newPage("x.md", "text\n\n    code\n    more\n```\nfenced\n```\n- item\n    continued\n")
	want := []bool{false, false, true, true, true, true, true, false, false}
	if !slices.Equal(pg.code, want) {
		t.Errorf("code lines %v, want %v", pg.code, want)
	}
}

// TestSlug: GitHub's anchors for headings.
func TestSlug(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"How to play", "how-to-play"},
		{"The dead-reckoning lab (`drlab`)", "the-dead-reckoning-lab-drlab"},
		{"Running many matches (`tankhost -agones`, `-metrics`, `deploy/`)", "running-many-matches-tankhost--agones--metrics-deploy"},
		{"Table 1.1 of Murphy's chapter", "table-11-of-murphys-chapter"},
	} {
		if got := slug(c.in); got != c.want {
			t.Errorf("slug(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestLayoutCatchesDrift: the Layout table's imports column holds what each row's
// packages import, named on earlier rows, and every package has a row.
func TestLayoutCatchesDrift(t *testing.T) {
	imports := map[string][]string{"tank": nil, "net/wire": {"tank"}, "net": {"net/wire", "net/internal/rate"}, "net/internal/rate": nil}
	head := layoutHeader + "\n|---|---|---|\n"
	for _, c := range []struct {
		name, rows string
		bad        bool
	}{
		{"true", "| `tank` | t | none (mathgl) |\n| `net/wire` | w | tank |\n| `net`, `net/internal/rate` | n | net/wire |\n", false},
		{"import not listed", "| `tank` | t | none |\n| `net/wire` | w | none |\n| `net`, `net/internal/rate` | n | net/wire |\n", true},
		{"import not real", "| `tank` | t | none |\n| `net/wire` | w | tank |\n| `net`, `net/internal/rate` | n | net/wire, tank |\n", true},
		{"import below", "| `net/wire` | w | tank |\n| `tank` | t | none |\n| `net`, `net/internal/rate` | n | net/wire |\n", true},
		{"package missing", "| `tank` | t | none |\n| `net/wire` | w | tank |\n| `net` | n | net/wire, net/internal/rate |\n", true},
		{"no such package", "| `tank`, `nope` | t | none |\n| `net/wire` | w | tank |\n| `net`, `net/internal/rate` | n | net/wire |\n", true},
	} {
		pg := newPage("README.md", "## Layout\n\n"+head+c.rows+"\nafter\n")
		f := fixtureFacts(pg)
		f.imports = imports
		got := checkLayout(pg, f)
		if c.bad && len(got) == 0 {
			t.Errorf("%s: no finding, want one", c.name)
		}
		if !c.bad && len(got) > 0 {
			t.Errorf("%s: findings %s, want none", c.name, strings.Join(got, "; "))
		}
	}
}
