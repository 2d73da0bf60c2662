//go:build race

package game

// raceEnabled reports a race-detector build, in which the longest tests play
// shorter: everything runs several times slower.
const raceEnabled = true
