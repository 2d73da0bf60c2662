package referee

import (
	"fmt"
	"testing"

	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/net"
)

// BenchmarkSpawnChurn measures one spawn and despawn of a tank under a fresh name, as
// the host's run loop pays for it, after 20,000 such names: the spawn-churn attack
// (16 connections churned 26,744 names in 200 s). The referee's cost must not grow
// with the names churned before.
func BenchmarkSpawnChurn(b *testing.B) {
	f := newFight(b)
	r, err := New(f.m, combat.Rules{}, f.reckon)
	if err != nil {
		b.Fatal(err)
	}
	var out []net.JudgeMessage
	churn := func(i int) {
		id := uint32(1000 + i%60000)
		at := 1 + float64(i)*1e-4
		r.Spawned(id, 9, fmt.Sprintf("churn%d", i), 0, f.target, at)
		r.Despawned(id, at)
		out = r.Outbox(out[:0])
	}
	for i := range 20000 {
		churn(i)
	}
	b.ResetTimer()
	for i := range b.N {
		churn(20000 + i)
	}
}
