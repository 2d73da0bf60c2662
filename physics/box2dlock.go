package physics

import "sync"

// box2dMu serializes the ticks of every World in the process. box2d counts its
// distance and time-of-impact queries in package-level variables (b2_gjkCalls,
// b2_toiCalls…), so two worlds stepping at once, as a practice match's in-process host
// and its player do, race on them. A tick takes well under a millisecond, so taking
// turns costs nothing noticeable.
var box2dMu sync.Mutex
