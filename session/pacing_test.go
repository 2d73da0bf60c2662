package session

import (
	"testing"
	"time"

	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/internal/units"
	"github.com/treadline/treadline/net"
)

// TestHostPacesSpawnsByTheWreckTime: a host paces remote players' spawns by the wreck
// time of the rules it referees (an honest tank respawns at most once per wreck
// time), unless its limits set the pace.
func TestHostPacesSpawnsByTheWreckTime(t *testing.T) {
	mp := testmaps.Small(t)
	for _, c := range []struct {
		name   string
		limits net.Limits
		rules  combat.Rules
		want   time.Duration
	}{
		{"default rules", net.Limits{}, combat.Rules{}, units.Duration(combat.DefaultWreckTime)},
		{"a short wreck time", net.Limits{}, combat.Rules{WreckTime: 1.5}, 1500 * time.Millisecond},
		{"the limits' own pace", net.Limits{RespawnInterval: 9 * time.Second}, combat.Rules{WreckTime: 1.5}, 9 * time.Second},
		{"unpaced", net.Limits{RespawnInterval: net.Off}, combat.Rules{}, -1},
	} {
		hc, _, err := hostNetConfig("127.0.0.1:0", "", "host", mp, c.limits, c.rules, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := hc.Limits.RespawnInterval; got != c.want {
			t.Errorf("%s: RespawnInterval %v, want %v", c.name, got, c.want)
		}
	}
}
