package game

import "time"

// StepPart names one part of Match.Step (and Snapshot), for a benchmark's split of
// where a frame's simulation goes.
type StepPart int

// The parts of a step, in the order Step runs them.
const (
	// StepReceive is the network in: the link's events read and applied, and the
	// tanks that left removed.
	StepReceive StepPart = iota
	// StepBehave is the local tanks' behaviour: the bots' driving and aiming.
	StepBehave
	// StepReckon is the remote tanks reckoned, clamped to the ground and their
	// physics proxies moved onto the reckoned paths, on the caller's thread (a large
	// match's worker threads are in Match.WorkerCPU).
	StepReckon
	// StepPhysics is the physics world's fixed steps, and a step longer than
	// Config.MaxStep's skip, with the link's figures read before it.
	StepPhysics
	// StepPublish is the local tanks' updates published and the camera's view sent.
	StepPublish
	// StepViews is every tank's view and trail refreshed for Snapshot.
	StepViews
	// StepCombat is the shots, shells, hits and claims.
	StepCombat
	// StepSnapshot is Snapshot: the views copied out for the renderer.
	StepSnapshot
	// NumStepParts is the number of parts.
	NumStepParts
)

// String returns the part's name, as the benchmark's report prints it.
func (p StepPart) String() string {
	switch p {
	case StepReceive:
		return "receive"
	case StepBehave:
		return "behave"
	case StepReckon:
		return "reckon"
	case StepPhysics:
		return "physics"
	case StepPublish:
		return "publish"
	case StepViews:
		return "views"
	case StepCombat:
		return "combat"
	case StepSnapshot:
		return "snapshot"
	}
	return "unknown"
}

// StepTimes is the time each part of the steps took, summed over the steps timed,
// as read from the clock given to Match.TimeSteps.
type StepTimes [NumStepParts]time.Duration

// Sub returns t less u, part by part: the time between two readings.
func (t StepTimes) Sub(u StepTimes) StepTimes {
	for i := range t {
		t[i] -= u[i]
	}
	return t
}

// stepTimer sums the time of each part of the steps on a clock; its zero value times
// nothing.
type stepTimer struct {
	clock func() time.Duration
	at    time.Duration // the clock's reading when the running part began
	sums  StepTimes
}

// begin starts timing a step (or a Snapshot).
func (s *stepTimer) begin() {
	if s.clock != nil {
		s.at = s.clock()
	}
}

// end adds the time since the last begin or end to part p.
func (s *stepTimer) end(p StepPart) {
	if s.clock == nil {
		return
	}
	c := s.clock()
	s.sums[p] += c - s.at
	s.at = c
}

// TimeSteps makes every Step and Snapshot from now on add the time each of their
// parts takes, read from clock, to the sums StepTimes returns: a thread's CPU time
// (cputime.Thread) gives the caller's own work in each part. A nil clock stops the
// timing and keeps the sums. Untimed, a step reads no clock.
func (m *Match) TimeSteps(clock func() time.Duration) { m.timer.clock = clock }

// StepTimes returns the time each part of the timed steps has taken so far (see
// TimeSteps); subtract two readings (StepTimes.Sub) for the steps between them.
func (m *Match) StepTimes() StepTimes { return m.timer.sums }
