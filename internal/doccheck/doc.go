// Package doccheck holds no code: its tests keep the project's Markdown true. They
// check that the README stays short enough to read (at most MaxReadmeLines lines),
// that every relative link and image in the Markdown files points at a file that
// exists (and at a heading that exists, when it names one), that every
// `go run ./cmd/NAME` names a command of this module with flags that command
// defines, that every flag shown alone in code is some command's flag, that every
// test, benchmark, fuzz target and example named exists, and that every package
// directory and repository file named in a command or code span exists. They hold the
// README's Layout table to the module: every package on a row, and each row's
// imports column what its packages import of this module (parsed from their files),
// each named on an earlier row. And every Example function in a test file runs under
// go test (has an // Output: comment of its own), not only compiles, and the files
// built only under the race detector hold constants alone (scripts/test vets without
// it). No function outside the tests is over MaxComplexity, counted as gocyclo counts.
//
// Run them with
//
//	go test ./internal/doccheck
package doccheck

// MaxReadmeLines is the most lines README.md may have: a newcomer reads it in five
// minutes; everything longer belongs in docs/.
const MaxReadmeLines = 250

// MaxComplexity is the highest cyclomatic complexity a function outside the tests may
// have: past it a function does several things, and its branches are read and tested
// as one. The count is gocyclo's (github.com/fzipp/gocyclo), so that tool's
// -over 20 and this check agree.
const MaxComplexity = 20
