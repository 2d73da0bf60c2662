package replay_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/treadline/treadline/record/recordtest"
	"github.com/treadline/treadline/replay"
	"github.com/treadline/treadline/terrain"
)

// TestPlayerCloseStopsWorkers: a replay of more than 256 tanks reckons them with
// worker goroutines of its match's own, which outlive a player that is dropped
// unclosed (a kill camera at every death); Close ends them, and the player plays on
// without them, even after a seek back makes it a new match.
func TestPlayerCloseStopsWorkers(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one CPU: the reckoning starts no workers")
	}
	if testing.Short() {
		t.Skip("a practice of 300 tanks on expanse")
	}
	mp, err := terrain.Load("../assets/maps/expanse.json")
	if err != nil {
		t.Fatal(err)
	}
	live, err := recordtest.Practice(recordtest.Config{Map: mp, Bots: 299, Seconds: 2, Seed: 2, Dir: t.TempDir(),
		Camera: camera, Ring: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := replay.ReadRing(live.Ring)
	if err != nil {
		t.Fatal(err)
	}
	before := reckonWorkers()
	p, err := replay.NewPlayer(rec, replay.PlayerConfig{Map: mp})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Advance(1); err != nil {
		t.Fatal(err)
	}
	if n := reckonWorkers(); n <= before {
		t.Fatalf("%d reckoning workers while the replay of %d tanks plays, %d before: the test shows nothing", n, len(rec.Tanks), before)
	}
	p.Close()
	p.Close() // idempotent
	if n := awaitWorkers(before); n != before {
		t.Errorf("%d reckoning workers after Close, %d before", n, before)
	}
	// A seek back makes a new match, closed at once: it starts none.
	if err := p.Seek(rec.Start); err != nil {
		t.Fatal(err)
	}
	if err := p.Advance(1); err != nil {
		t.Fatal(err)
	}
	if n := awaitWorkers(before); n != before {
		t.Errorf("%d reckoning workers after a seek back on a closed player, %d before", n, before)
	}
}

// reckonWorkers counts the goroutines in deadreckon's reckoning workers.
func reckonWorkers() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "deadreckon.(*Reckoner).worker(")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// awaitWorkers yields until the reckoning workers number want, or a good many
// yields have passed, and returns how many there are: a closed Reckoner's workers
// end when next scheduled.
func awaitWorkers(want int) int {
	n := reckonWorkers()
	for i := 0; i < 1000 && n != want; i++ {
		runtime.Gosched()
		n = reckonWorkers()
	}
	return n
}
