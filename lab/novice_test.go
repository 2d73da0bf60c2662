package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/treadline/treadline/bot"
	"github.com/treadline/treadline/combat"
)

// board is a scoreboard that shows one line at a time.
type board struct{ line combat.Score }

func (b *board) Scores(buf []combat.Score) []combat.Score {
	return append(buf, combat.Score{Name: "Abrams", Kills: 9}, b.line)
}

// TestNoviceCountsEveryMatch: a match's scores start from zero when the next match
// starts; the novice's kills, deaths and hits add up over every match of a run, and a
// match's end ends a life (the tank is born again for the next).
func TestNoviceCountsEveryMatch(t *testing.T) {
	var tl noviceTally
	l := noviceLife{tl: &tl, lastHealth: -1}
	b := &board{}
	frames := []struct {
		at                  float64 // s
		kills, deaths, hits int
		shots               int
		wreck, over         bool
	}{
		{0, 0, 0, 0, 0, false, false},
		{10, 1, 0, 2, 9, false, false},
		{20, 1, 1, 2, 9, true, false},  // destroyed
		{25, 1, 1, 2, 9, false, false}, // respawned
		{40, 2, 1, 4, 20, false, false},
		{50, 2, 1, 4, 20, false, true}, // the match ends
		{60, 0, 0, 0, 0, false, false}, // the next starts
		{70, 1, 0, 1, 3, false, false},
	}
	for _, f := range frames {
		b.line = combat.Score{Name: noviceName, Kills: f.kills, Deaths: f.deaths, Hits: f.hits, Shots: f.shots}
		l.countScores(b)
		l.track(f.at, true, f.wreck, f.over)
	}
	l.finish(80)
	l.bankScores(b)
	got := tl.result()
	want := NoviceResult{Kills: 3, Deaths: 1, Spawns: 3}
	if got.Kills != want.Kills || got.Deaths != want.Deaths || got.Spawns != want.Spawns || tl.hostHits != 5 {
		t.Errorf("kills, deaths, spawns, hits = %d, %d, %d, %d; want %d, %d, %d, 5",
			got.Kills, got.Deaths, got.Spawns, tl.hostHits, want.Kills, want.Deaths, want.Spawns)
	}
	if got.Hits != 5 || got.Shots != 23 {
		t.Errorf("hits, shots = %d, %d; want 5, 23", got.Hits, got.Shots)
	}
	if fmt.Sprint(tl.lives) != "[20 25 20]" {
		t.Errorf("lives %v s, want [20 25 20]", tl.lives)
	}
}

// TestNovicePlaysPractice plays a short practice with the novice through drlab's path
// and checks the figures add up: the novice spawned, lived, and its rates match its
// counts.
func TestNovicePlaysPractice(t *testing.T) {
	var out bytes.Buffer
	err := RunNovice(context.Background(), &out, NoviceOptions{Difficulty: bot.Easy, Duration: 20 * time.Second, Seed: 3, JSON: true})
	if err != nil {
		t.Fatal(err)
	}
	var r NoviceResult
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v in %s", err, out.Bytes())
	}
	const eps = 1e-9
	switch {
	case r.Spawns < 1 || r.Minutes < 20.0/60-eps || r.Minutes > 20.0/60+eps:
		t.Errorf("%d spawns in %.2f min, want at least 1 in 0.33", r.Spawns, r.Minutes)
	case r.MedianSurvivalS <= 0 || r.MedianSurvivalS > 20:
		t.Errorf("median survival %.1f s, want in (0, 20]", r.MedianSurvivalS)
	case r.KillsPerMin*r.Minutes-float64(r.Kills) > eps || float64(r.Deaths)-r.DeathsPerMin*r.Minutes > eps:
		t.Errorf("rates %.2f, %.2f /min do not match %d kills, %d deaths in %.2f min", r.KillsPerMin, r.DeathsPerMin, r.Kills, r.Deaths, r.Minutes)
	}
}

// TestNovicePlaysHosted plays a short hosted match with the novice, joined mid-round
// asking for no team: the host puts it on a team, and it lives and fights there.
func TestNovicePlaysHosted(t *testing.T) {
	var out bytes.Buffer
	err := RunNovice(context.Background(), &out, NoviceOptions{Difficulty: bot.Easy, Duration: 20 * time.Second, Seed: 3, JSON: true, Hosted: true})
	if err != nil {
		t.Fatal(err)
	}
	var r NoviceResult
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v in %s", err, out.Bytes())
	}
	const eps = 1e-9
	if r.Team < 1 || r.Team > 2 {
		t.Errorf("the novice joined on team %d, want the host to put it on team 1 or 2", r.Team)
	}
	if r.Spawns < 1 || r.Minutes < 20.0/60-eps || r.Minutes > 20.0/60+eps {
		t.Errorf("%d spawns in %.2f min, want at least 1 in 0.33", r.Spawns, r.Minutes)
	}
}

// BenchmarkNovice measures the novice of `drlab -novice -runs 5` (each run
// DefaultNoviceDuration long) on easy and normal, reports its figures as metrics and
// fails when they miss the goals: on easy a median survival of at least 45 s, at most
// 5% of spawns hit within 5 s and a K/D of at least 0.7; on normal a K/D of at least
// 0.4. It takes minutes: run it with -benchtime 1x.
func BenchmarkNovice(b *testing.B) {
	for range b.N {
		for _, c := range []struct {
			d                   bot.Difficulty
			survival, early, kd float64 // goals: at least, at most (0: none), at least
		}{
			{d: bot.Easy, survival: 45, early: 0.05, kd: 0.7},
			{d: bot.Normal, kd: 0.4},
		} {
			r, _, err := runNovice(context.Background(), NoviceOptions{Difficulty: c.d, Runs: 5})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(r.KD, c.d.String()+"-kd")
			b.ReportMetric(r.HitWithin5sOfSpawn, c.d.String()+"-hit-within-5s")
			b.ReportMetric(r.MedianSurvivalS, c.d.String()+"-median-survival-s")
			if r.MedianSurvivalS < c.survival || r.KD < c.kd || c.early > 0 && r.HitWithin5sOfSpawn > c.early {
				b.Errorf("%v: median survival %.1f s, hit within 5 s of spawn %.1f%%, K/D %.2f (%d kills, %d deaths); "+
					"want at least %v s, at most %.0f%%, at least %.1f", c.d, r.MedianSurvivalS, 100*r.HitWithin5sOfSpawn,
					r.KD, r.Kills, r.Deaths, c.survival, 100*c.early, c.kd)
			}
		}
	}
}
