//go:build !race

package gltest

// raceDetector reports a -race build; see the package comment.
const raceDetector = false
