//go:build !race

package render

// raceDetector reports a -race build; see race_test.go.
const raceDetector = false
