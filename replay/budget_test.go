package replay_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/treadline/treadline/record"
	"github.com/treadline/treadline/replay"
)

// TestReadWithinBudget: a recording whose events take more than the budget stops at
// the block that crossed it, keeps what it read, and says so in one line.
func TestReadWithinBudget(t *testing.T) {
	r, err := record.Open(testLive.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rec, err := replay.ReadWithin(r, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	full := load(t)
	t.Logf("%d of %d records: %v", rec.Records, full.Records, rec.Stopped)
	if !errors.Is(rec.Stopped, replay.ErrTooLarge) || rec.Records == 0 || rec.Records >= full.Records ||
		!strings.Contains(rec.Stopped.Error(), "block ") {
		t.Errorf("read %d of %d records within 1 MiB, stopped: %v", rec.Records, full.Records, rec.Stopped)
	}
}
