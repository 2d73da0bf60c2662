package game

import (
	"math"
	"testing"

	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/testmaps"
)

// TestDeadReckoningMergesFieldByField: Config.DeadReckoning changes only the fields it
// sets; the rest of the game's tuning stays, and the two offs have names.
func TestDeadReckoningMergesFieldByField(t *testing.T) {
	game := DeadReckoning()
	for _, c := range []struct {
		name string
		cfg  Config
		want func(dr *deadreckon.PublisherConfig)
	}{
		{"nothing set: the game's", Config{}, func(*deadreckon.PublisherConfig) {}},
		{"one publisher field", Config{DeadReckoning: deadreckon.PublisherConfig{MinInterval: 0.5}},
			func(dr *deadreckon.PublisherConfig) { dr.MinInterval = 0.5 }},
		{"one reckoning field", Config{DeadReckoning: deadreckon.PublisherConfig{Reckon: deadreckon.Config{CatchUpSpeed: 3}}},
			func(dr *deadreckon.PublisherConfig) { dr.Reckon.CatchUpSpeed = 3 }},
		{"one clamp field", Config{DeadReckoning: deadreckon.PublisherConfig{Reckon: deadreckon.Config{Clamp: deadreckon.Clamp{Mode: deadreckon.ClampUp}}}},
			func(dr *deadreckon.PublisherConfig) { dr.Reckon.Clamp.Mode = deadreckon.ClampUp }},
		{"one limit", Config{DeadReckoning: deadreckon.PublisherConfig{Reckon: deadreckon.Config{Limits: deadreckon.Limits{MaxSpeed: 20}}}},
			func(dr *deadreckon.PublisherConfig) { dr.Reckon.Limits.MaxSpeed = 20 }},
		{"another algorithm", Config{DeadReckoning: deadreckon.PublisherConfig{Reckon: deadreckon.Config{Algorithm: deadreckon.CubicBezier}}},
			func(dr *deadreckon.PublisherConfig) { dr.Reckon.Algorithm = deadreckon.CubicBezier }},
		{"no clamp", Config{NoClamp: true},
			func(dr *deadreckon.PublisherConfig) { dr.Reckon.Clamp.Mode = deadreckon.ClampNone }},
		{"no latency compensation", Config{NoLatencyCompensation: true},
			func(dr *deadreckon.PublisherConfig) { dr.Reckon.CompensateLatency = false }},
		{"the whole game's value", Config{DeadReckoning: game}, func(*deadreckon.PublisherConfig) {}},
	} {
		want := game
		c.want(&want)
		if got := c.cfg.deadReckoning(); got != want {
			t.Errorf("%s: dead reckoning %+v\nwant %+v", c.name, got, want)
		}
	}
}

// TestInvalidRulesRefused: NewMatch refuses rules that are not numbers where numbers
// are meant, instead of playing by the defaults.
func TestInvalidRulesRefused(t *testing.T) {
	for _, r := range []combat.Rules{{Reload: -1}, {Damage: math.NaN()}, {TimeLimit: math.Inf(1)}} {
		if _, err := NewMatch(Config{Map: testmaps.Small(t), Rules: r}, &scriptLink{}); err == nil {
			t.Errorf("rules %+v accepted", r)
		}
	}
}
