package session

import (
	"testing"
	"time"

	"github.com/treadline/treadline/internal/units"
)

// TestMatchRulesIdle walks a served match through its states with a made-up clock:
// it waits for the first player however long that takes, plays, goes idle when the
// last player leaves, comes back when one returns, and ends after the idle timeout.
func TestMatchRulesIdle(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(units.Duration(s)) }
	r := matchRules{idleTimeout: 60 * time.Second}
	for _, step := range []struct {
		at      float64
		players int
		want    MatchState
	}{
		{0, 0, MatchWaiting},
		{3600, 0, MatchWaiting}, // nobody yet: wait, however long
		{3601, 1, MatchPlaying},
		{3700, 2, MatchPlaying},
		{3710, 0, MatchIdle},
		{3769, 0, MatchIdle},
		{3769.5, 1, MatchPlaying}, // someone came back: the idle clock starts over
		{3800, 0, MatchIdle},
		{3859.9, 0, MatchIdle},
		{3860, 0, MatchEnded},
		{3861, 3, MatchEnded}, // ended stays ended
	} {
		st := r.step(at(step.at), step.players, 0)
		if st.State != step.want || st.Players != step.players || !st.Now.Equal(at(step.at)) {
			t.Fatalf("at %v s with %d players: %+v, want state %v", step.at, step.players, st, step.want)
		}
		if (step.at == 3860) != (st.Reason != "") {
			t.Errorf("at %v s: reason %q", step.at, st.Reason)
		}
	}
}

// TestMatchRulesNoTimeout: with no idle timeout an empty match never ends.
func TestMatchRulesNoTimeout(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	var r matchRules
	r.step(t0, 1, 0)
	if st := r.step(t0.Add(24*time.Hour), 0, 0); st.State != MatchIdle {
		t.Errorf("empty for a day with no timeout: %v, want idle", st.State)
	}
	if st := r.step(t0.Add(48*time.Hour), 0, 0); st.State != MatchIdle {
		t.Errorf("empty for two days with no timeout: %v, want idle", st.State)
	}
}

// TestMatchRulesRounds: a match limited to rounds ends when the last of them ends,
// with players in it or not, and a match without the limit plays on.
func TestMatchRulesRounds(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	r := matchRules{rounds: 2}
	if st := r.step(t0, 3, 1); st.State != MatchPlaying {
		t.Fatalf("one of two rounds played: %v, want playing", st.State)
	}
	st := r.step(t0.Add(time.Second), 3, 2)
	if st.State != MatchEnded || st.Reason != "2 of 2 rounds played" {
		t.Fatalf("two of two rounds played: %+v, want ended", st)
	}
	if st := r.step(t0.Add(2*time.Second), 3, 0); st.State != MatchEnded {
		t.Errorf("ended stays ended: %v", st.State)
	}
	var unlimited matchRules
	if st := unlimited.step(t0, 2, 100); st.State != MatchPlaying {
		t.Errorf("no round limit, 100 rounds played: %v, want playing", st.State)
	}
}

func TestMatchStateString(t *testing.T) {
	for _, tc := range []struct {
		s    MatchState
		want string
	}{{MatchWaiting, "waiting"}, {MatchPlaying, "playing"}, {MatchIdle, "idle"}, {MatchEnded, "ended"}, {42, "unknown"}} {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("%d: %q, want %q", tc.s, got, tc.want)
		}
	}
}

// TestMatchRulesHeldRoundClock: a held round clock counts no round, however many the
// referee ends, until the first player joins or a start is asked for; then the rounds
// count and the limit ends the match.
func TestMatchRulesHeldRoundClock(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(units.Duration(s)) }
	for _, tc := range []struct {
		name    string
		players int  // at the start
		asked   bool // a start asked for (an allocation)
		want    MatchState
	}{
		{"first join", 1, false, MatchPlaying},
		{"allocation", 0, true, MatchWaiting},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := matchRules{rounds: 1, held: true}
			// Held for a day while the referee ends round after round: nothing counts.
			for _, s := range []float64{0, 600, 3600, 86400} {
				if r.start(0, false) {
					t.Fatalf("at %v s: started with nobody and nothing asked", s)
				}
				if st := r.step(at(s), 0, int(s/600)); st.State != MatchWaiting {
					t.Fatalf("at %v s, held, %d rounds ended: %v, want waiting", s, int(s/600), st.State)
				}
			}
			if !r.start(tc.players, tc.asked) {
				t.Fatal("did not start")
			}
			if r.start(tc.players, tc.asked) {
				t.Error("started twice")
			}
			if st := r.step(at(86401), tc.players, 0); st.State != tc.want {
				t.Fatalf("started, no round ended: %v, want %v", st.State, tc.want)
			}
			if st := r.step(at(87001), tc.players, 1); st.State != MatchEnded || st.Reason != "1 of 1 rounds played" {
				t.Errorf("started, one round ended: %+v, want ended", st)
			}
		})
	}
	var never matchRules
	if never.start(3, true) {
		t.Error("a clock never held started")
	}
}
