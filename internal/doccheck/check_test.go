package doccheck

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// page is one Markdown file: its path from the module root (slash-separated), its
// lines, and which lines are code (fenced or indented blocks).
type page struct {
	path  string
	lines []string
	code  []bool
}

// newPage splits text into lines and marks the code blocks: lines between ``` fences
// (the fences included), and lines indented by four spaces or a tab that follow a
// blank line or another code line.
func newPage(p, text string) page {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	code := make([]bool, len(lines))
	fenced := false
	for i, l := range lines {
		switch {
		case strings.HasPrefix(strings.TrimSpace(l), "```"):
			code[i], fenced = true, !fenced
		case fenced:
			code[i] = true
		case strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t"):
			code[i] = i == 0 || strings.TrimSpace(lines[i-1]) == "" || code[i-1]
		}
	}
	return page{path: p, lines: lines, code: code}
}

// facts is what the checks hold the pages to: what exists in the module.
type facts struct {
	// exists reports whether a file or directory exists, given its slash-separated
	// path from the module root.
	exists func(p string) bool
	// anchors holds the heading anchors of every page, by page path.
	anchors map[string]map[string]bool
	// commands holds each command's flags (without the dash), by name (cmd/NAME).
	commands map[string]map[string]bool
	// funcs holds the names of every Test, Benchmark, Fuzz and Example function.
	funcs []string
	// funcsIn holds the same names by package directory (slash-separated from the
	// module root, "." for the root).
	funcsIn map[string][]string
	// imports holds what each package of the module imports of the module (its
	// non-test files, slash-separated paths from the module root), by package
	// directory.
	imports map[string][]string
}

// funcsUnder returns the test functions of the packages a go command's argument
// names: one directory ("./game"), or a tree ("./net/...", "./...").
func (f facts) funcsUnder(arg string) []string {
	dir, tree := strings.CutSuffix(strings.TrimPrefix(arg, "./"), "...")
	dir = strings.TrimSuffix(dir, "/")
	if dir == "" {
		dir = "."
	}
	var out []string
	for d, fns := range f.funcsIn {
		if d == dir || tree && (dir == "." || strings.HasPrefix(d, dir+"/")) {
			out = append(out, fns...)
		}
	}
	return out
}

// allFlags reports whether name is a flag of any command, or -h.
func (f facts) anyFlag(name string) bool {
	if name == "h" || name == "help" {
		return true
	}
	for _, flags := range f.commands {
		if flags[name] {
			return true
		}
	}
	return false
}

var (
	linkRE     = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	spanRE     = regexp.MustCompile("`([^`]+)`")
	testNameRE = regexp.MustCompile(`^(Test|Benchmark|Fuzz|Example)[A-Z0-9_]\w*$`)
	flagRE     = regexp.MustCompile(`^-([a-z][a-z0-9-]*)(=.*)?$`)
	headingRE  = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
)

// slug is GitHub's anchor for a heading: lower case, inline markup and punctuation
// dropped (hyphens and underscores kept), spaces turned into hyphens.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// headingAnchors returns the anchors of a page's headings; a repeated heading gets
// -1, -2, … as GitHub numbers them.
func headingAnchors(pg page) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for i, l := range pg.lines {
		m := headingRE.FindStringSubmatch(l)
		if m == nil || pg.code[i] {
			continue
		}
		s := slug(m[1])
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// checkLinks reports every relative link or image of pg whose file does not exist,
// or whose #anchor names no heading of its page.
func checkLinks(pg page, f facts) []string {
	var bad []string
	for i, l := range pg.lines {
		if pg.code[i] {
			continue
		}
		l = spanRE.ReplaceAllString(l, "``") // a link in code is not a link
		for _, m := range linkRE.FindAllStringSubmatch(l, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			where := fmt.Sprintf("%s:%d: link %s", pg.path, i+1, target)
			rel := pg.path
			if file != "" {
				rel = path.Join(path.Dir(pg.path), file)
				if strings.HasPrefix(rel, "../") || path.IsAbs(file) {
					bad = append(bad, where+": leaves the repository")
					continue
				}
				if !f.exists(rel) {
					bad = append(bad, where+": no such file")
					continue
				}
			}
			if anchor != "" && strings.HasSuffix(rel, ".md") && !f.anchors[rel][anchor] {
				bad = append(bad, fmt.Sprintf("%s: %s has no heading #%s", where, rel, anchor))
			}
		}
	}
	return bad
}

// commandSegments returns the parts of line that follow each occurrence of prefix,
// each cut at the next occurrence, a shell comment, the end of a code span or a
// table cell.
func commandSegments(line, prefix string) []string {
	var segs []string
	for {
		i := strings.Index(line, prefix)
		if i < 0 {
			return segs
		}
		line = line[i+len(prefix):]
		seg := line
		if j := strings.Index(seg, prefix); j >= 0 {
			seg = seg[:j]
		}
		for _, stop := range []string{" #", "`", "|", "&&", ";"} {
			if j := strings.Index(seg, stop); j >= 0 {
				seg = seg[:j]
			}
		}
		segs = append(segs, seg)
	}
}

// flagsOf returns the flag names among tokens: words that start with a dash and a
// letter (a value such as -1ms is not a flag).
func flagsOf(tokens []string) []string {
	var names []string
	for _, t := range tokens {
		if m := flagRE.FindStringSubmatch(t); m != nil {
			names = append(names, m[1])
		}
	}
	return names
}

// checkFlags reports the flags among tokens that command cmd does not define.
func checkFlags(where, cmd string, tokens []string, f facts) []string {
	var bad []string
	for _, name := range flagsOf(tokens) {
		if name != "h" && name != "help" && !f.commands[cmd][name] {
			bad = append(bad, fmt.Sprintf("%s: %s has no flag -%s", where, cmd, name))
		}
	}
	return bad
}

// checkCommands reports every `go run ./cmd/NAME` that names no command or a flag
// NAME does not define, every package directory of a go test, go doc or go vet
// command that does not exist, and every -run, -bench or -fuzz pattern that matches
// no function.
func checkCommands(pg page, f facts) []string {
	var bad []string
	for i, l := range pg.lines {
		where := fmt.Sprintf("%s:%d", pg.path, i+1)
		for _, seg := range commandSegments(l, "go run ./cmd/") {
			tokens := strings.Fields(seg)
			if len(tokens) == 0 {
				bad = append(bad, where+": go run ./cmd/ names no command")
				continue
			}
			cmd := strings.TrimSuffix(tokens[0], "/")
			if _, ok := f.commands[cmd]; !ok {
				bad = append(bad, fmt.Sprintf("%s: go run ./cmd/%s: no such command", where, cmd))
				continue
			}
			bad = append(bad, checkFlags(where, cmd, tokens[1:], f)...)
		}
		for _, verb := range []string{"go test ", "go doc ", "go vet "} {
			for _, seg := range commandSegments(l, verb) {
				bad = append(bad, checkGoTool(where, strings.Fields(seg), f)...)
			}
		}
	}
	return bad
}

// checkGoTool checks the arguments of a go test, go doc or go vet command: its
// package directories exist, and its -run, -bench and -fuzz patterns match a
// function of the right kind in those packages (in any package when it names none).
func checkGoTool(where string, args []string, f facts) []string {
	var bad []string
	funcs := f.funcs
	if pkgs := slices.DeleteFunc(slices.Clone(args), func(a string) bool { return !strings.HasPrefix(a, "./") }); len(pkgs) > 0 {
		funcs = nil
		for _, p := range pkgs {
			funcs = append(funcs, f.funcsUnder(p)...)
		}
	}
	for k, a := range args {
		if strings.HasPrefix(a, "./") {
			dir := strings.TrimSuffix(strings.TrimSuffix(a, "..."), "/")
			if dir != "." && !f.exists(strings.TrimPrefix(dir, "./")) {
				bad = append(bad, fmt.Sprintf("%s: package directory %s does not exist", where, a))
			}
			continue
		}
		kinds := map[string][]string{"-run": {"Test", "Example", "Fuzz"}, "-bench": {"Benchmark"}, "-fuzz": {"Fuzz"}}[a]
		if kinds == nil || k+1 >= len(args) {
			continue
		}
		pattern := strings.Trim(args[k+1], `'"`)
		if pattern == "^$" || pattern == "." {
			continue
		}
		top, _, _ := strings.Cut(pattern, "/") // the function's part of a sub-test pattern
		re, err := regexp.Compile(top)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: %s %s: %v", where, a, pattern, err))
			continue
		}
		if !slices.ContainsFunc(funcs, func(fn string) bool {
			return re.MatchString(fn) && slices.ContainsFunc(kinds, func(k string) bool { return strings.HasPrefix(fn, k) })
		}) {
			bad = append(bad, fmt.Sprintf("%s: %s %s matches no %s function of the packages named", where, a, pattern, strings.Join(kinds, ", ")))
		}
	}
	return bad
}

// repoFileExts are the extensions of the repository files pages name in code.
var repoFileExts = []string{".go", ".json", ".png", ".yaml", ".yml", ".md", ".sh", ".csv"}

// repoPath reports whether token reads as a path to a file of this repository:
// relative, with a slash and a known extension, or a script.
func repoPath(token string) bool {
	if strings.ContainsAny(token, "$~%*<>:=,") || strings.HasPrefix(token, "/") || strings.HasPrefix(token, ".") {
		return false
	}
	if strings.HasPrefix(token, "scripts/") {
		return true
	}
	return strings.Contains(token, "/") && slices.Contains(repoFileExts, path.Ext(token))
}

// checkSpans reports what code names that does not exist: tests, benchmarks, fuzz
// targets and examples named alone in a code span; flags shown alone, or after a
// program's name; and repository files named in code spans or code lines.
func checkSpans(pg page, f facts) []string {
	var bad []string
	for i, l := range pg.lines {
		where := fmt.Sprintf("%s:%d", pg.path, i+1)
		var spans []string
		if pg.code[i] {
			spans = []string{l}
		} else {
			for _, m := range spanRE.FindAllStringSubmatch(l, -1) {
				spans = append(spans, m[1])
			}
		}
		for _, s := range spans {
			tokens := strings.Fields(s)
			if len(tokens) == 0 {
				continue
			}
			for _, t := range tokens {
				if repoPath(t) && !f.exists(t) {
					bad = append(bad, fmt.Sprintf("%s: %s does not exist", where, t))
				}
			}
			if pg.code[i] {
				continue
			}
			name, _, _ := strings.Cut(s, "/")
			if testNameRE.MatchString(name) && !slices.Contains(f.funcs, name) {
				bad = append(bad, fmt.Sprintf("%s: no function %s", where, name))
			}
			if _, ok := f.commands[tokens[0]]; ok && len(tokens) > 1 {
				bad = append(bad, checkFlags(where, tokens[0], tokens[1:], f)...)
			}
			if flagRE.MatchString(tokens[0]) {
				for _, name := range flagsOf(tokens) {
					if !f.anyFlag(name) {
						bad = append(bad, fmt.Sprintf("%s: -%s is no command's flag", where, name))
					}
				}
			}
		}
	}
	return bad
}

// layoutHeader is the header row of README.md's Layout table.
const layoutHeader = "| package | what it is | imports (of this module) |"

// parenRE matches a parenthetical remark in a table cell ("none (mathgl)").
var parenRE = regexp.MustCompile(`\s*\([^)]*\)`)

// checkLayout reports where the README's Layout table drifts from the module's
// packages: a package of the module that no row names, a row naming a package that
// does not exist, a row whose imports column differs from what its packages import
// of this module (the union over the row's packages, the row's own left out; "none"
// for nothing; a parenthetical remark is ignored), and an import named on no earlier
// row (the table runs from the bottom of the import graph up).
func checkLayout(pg page, f facts) []string {
	if pg.path != "README.md" {
		return nil
	}
	start := slices.Index(pg.lines, layoutHeader)
	if start < 0 {
		return []string{"README.md: no Layout table (" + layoutHeader + ")"}
	}
	var bad []string
	named := map[string]bool{}
	for i := start + 2; i < len(pg.lines) && strings.HasPrefix(pg.lines[i], "|"); i++ {
		where := fmt.Sprintf("%s:%d", pg.path, i+1)
		cells := strings.Split(strings.Trim(pg.lines[i], "|"), "|")
		if len(cells) != 3 {
			bad = append(bad, where+": a Layout row needs three cells")
			continue
		}
		var row []string
		for _, m := range spanRE.FindAllStringSubmatch(cells[0], -1) {
			if _, ok := f.imports[m[1]]; !ok {
				bad = append(bad, fmt.Sprintf("%s: %s is no package of this module", where, m[1]))
			}
			row = append(row, m[1])
		}
		want := map[string]bool{}
		for _, p := range row {
			for _, imp := range f.imports[p] {
				if !slices.Contains(row, imp) {
					want[imp] = true
				}
			}
		}
		got := map[string]bool{}
		if list := strings.TrimSpace(parenRE.ReplaceAllString(cells[2], "")); list != "none" {
			for _, p := range strings.Split(list, ",") {
				got[strings.TrimSpace(p)] = true
			}
		}
		for _, p := range slices.Sorted(maps.Keys(want)) {
			if !got[p] {
				bad = append(bad, fmt.Sprintf("%s: %s imports %s, not listed", where, strings.Join(row, ", "), p))
			} else if !named[p] {
				bad = append(bad, fmt.Sprintf("%s: %s imports %s, which no earlier row names", where, strings.Join(row, ", "), p))
			}
		}
		for _, p := range slices.Sorted(maps.Keys(got)) {
			if !want[p] {
				bad = append(bad, fmt.Sprintf("%s: %s does not import %s, listed", where, strings.Join(row, ", "), p))
			}
		}
		for _, p := range row {
			named[p] = true
		}
	}
	var missing []string
	for p := range f.imports {
		if !named[p] {
			missing = append(missing, fmt.Sprintf("README.md: package %s is in no row of the Layout table", p))
		}
	}
	slices.Sort(missing)
	return append(bad, missing...)
}
