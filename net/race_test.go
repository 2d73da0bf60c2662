//go:build race

package net

// raceEnabled reports a race-detector build, in which the attack tests scale their
// counts down: everything runs several times slower.
const raceEnabled = true
