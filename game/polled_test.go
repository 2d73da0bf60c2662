package game

import (
	"testing"
	"time"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/physics"
)

// driftLink is a scriptLink whose clock offset moves a millisecond at every Stats
// call, and which counts them.
type driftLink struct {
	scriptLink
	calls int
}

func (l *driftLink) Stats() net.Stats {
	l.calls++
	return net.Stats{ClockOffset: time.Duration(l.calls) * time.Millisecond}
}

// polledOffsets is an Observer that keeps the clock offsets Polled reports.
type polledOffsets struct{ got []time.Duration }

func (o *polledOffsets) Polled(_ float64, _ []net.Event, off time.Duration) {
	o.got = append(o.got, off)
}
func (o *polledOffsets) Published(uint32, deadreckon.State, float64) {}
func (o *polledOffsets) Truth(uint32, *deadreckon.Sample)            {}

// TestPolledOffsetIsTheSteps: a step tells its Observer the clock offset its own
// reckoning uses, read once at its start, and asks the link for its figures once
// a step; while the match joins, each poll reads the offset afresh.
func TestPolledOffsetIsTheSteps(t *testing.T) {
	l := &driftLink{}
	o := &polledOffsets{}
	m, err := NewMatch(Config{Map: testmaps.Small(t), Observer: o}, l)
	if err != nil {
		t.Fatal(err)
	}
	joined := len(o.got)
	if joined == 0 {
		t.Fatal("no poll while joining")
	}
	// NewMatch reads the figures, then each joining poll reads them again.
	for i, off := range o.got {
		if want := time.Duration(2+i) * time.Millisecond; off != want {
			t.Errorf("joining poll %d told offset %v, want %v (read afresh)", i, off, want)
		}
	}
	for i := 1; i <= 5; i++ {
		before := l.calls
		if err := m.Step(float64(i)/60, physics.Input{}); err != nil {
			t.Fatal(err)
		}
		if n := l.calls - before; n != 1 {
			t.Errorf("step %d asked the link for its figures %d times, want once", i, n)
		}
		got := o.got[len(o.got)-1]
		if want := time.Duration(before+1) * time.Millisecond; got != want || m.stats.ClockOffset != want {
			t.Errorf("step %d told the observer offset %v, its reckoning used %v; want both %v", i, got, m.stats.ClockOffset, want)
		}
	}
	if len(o.got) != joined+5 {
		t.Errorf("%d polls told, want %d while joining and 5 steps", len(o.got), joined)
	}
}

// TestStepTimesByPart: a timed match adds each part of Step and Snapshot to its
// sums, on the clock it was given; untimed, it reads no clock and its sums stay.
func TestStepTimesByPart(t *testing.T) {
	m, err := NewMatch(Config{Map: testmaps.Small(t)}, &driftLink{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	// A clock that moves on a millisecond at each reading gives each part one
	// millisecond a step, physics two: every part ends with one reading, physics
	// also after the link's figures and the skip of a long step.
	reads := 0
	clock := func() time.Duration {
		reads++
		return time.Duration(reads) * time.Millisecond
	}
	m.TimeSteps(clock)
	var snap Snapshot
	for i := 1; i <= 3; i++ {
		if err := m.Step(float64(i)/60, physics.Input{Throttle: 1}); err != nil {
			t.Fatal(err)
		}
	}
	m.Snapshot(&snap)
	m.Snapshot(&snap)
	got := m.StepTimes()
	for p := range NumStepParts {
		want := 3 * time.Millisecond
		switch p {
		case StepSnapshot:
			want = 2 * time.Millisecond
		case StepPhysics:
			want = 6 * time.Millisecond
		}
		if got[p] != want {
			t.Errorf("%v: %v, want %v", p, got[p], want)
		}
	}
	if d := got.Sub(StepTimes{StepReckon: time.Millisecond}); d[StepReckon] != 2*time.Millisecond || d[StepPhysics] != got[StepPhysics] {
		t.Errorf("Sub: %v", d)
	}
	m.TimeSteps(nil)
	before := reads
	if err := m.Step(4.0/60, physics.Input{}); err != nil {
		t.Fatal(err)
	}
	m.Snapshot(&snap)
	if reads != before || m.StepTimes() != got {
		t.Errorf("untimed step read the clock %d times and changed the sums to %v", reads-before, m.StepTimes())
	}
	if s := StepPart(-1).String(); s != "unknown" {
		t.Errorf("StepPart(-1) = %q", s)
	}
}
