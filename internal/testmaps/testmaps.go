// Package testmaps builds the generated maps the game's tests play on, each once per
// test binary (a terrain.Map is immutable, so tests share it).
package testmaps

import (
	"sync"
	"testing"

	"github.com/treadline/treadline/terrain"
)

// lazy is a map generated on first use.
type lazy struct {
	once sync.Once
	cfg  terrain.GenerateConfig
	m    *terrain.Map
	err  error
}

func (l *lazy) get(t testing.TB) *terrain.Map {
	t.Helper()
	l.once.Do(func() { l.m, l.err = terrain.Generate(l.cfg) })
	if l.err != nil {
		t.Fatalf("generate map: %v", l.err)
	}
	return l.m
}

var (
	valley = &lazy{cfg: terrain.GenerateConfig{Seed: 1}}
	small  = &lazy{cfg: terrain.GenerateConfig{Seed: 7, Size: 256, Samples: 129}}
)

// Valley returns the full-size generated map of seed 1, which the combat tests fight
// on (its "floor" landmark is level ground with room to shoot).
func Valley(t testing.TB) *terrain.Map { return valley.get(t) }

// Small returns a small generated map (256 m, seed 7) where tanks meet quickly.
func Small(t testing.TB) *terrain.Map { return small.get(t) }
