package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/treadline/treadline/assets/maps"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/net/impair"
)

// TestCrowdThroughTheHost runs a small crowd over a lossy link, with the budget
// engaged (more tanks than net.DefaultZonesAbove) and cut low, so that the scheduler
// must choose: the downlink stays within the budget, no event is lost, every measure
// has samples, and the same seed gives the same bytes.
func TestCrowdThroughTheHost(t *testing.T) {
	if testing.Short() {
		t.Skip("a crowd of 80 tanks for 8 s")
	}
	o := CrowdOptions{Tanks: 80, Observers: 8, Duration: 8, Seed: 3, FPS: 30, Downlink: 4000, JSON: true,
		Network: impair.Link{Latency: 150 * time.Millisecond, Jitter: 30 * time.Millisecond, Loss: 0.1}}
	var out [2]bytes.Buffer
	for i := range out {
		if err := RunCrowd(context.Background(), &out[i], o); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(out[0].Bytes(), out[1].Bytes()) {
		t.Errorf("the same seed gave\n%s\nand\n%s", out[0].Bytes(), out[1].Bytes())
	}
	var r CrowdResult
	if err := json.Unmarshal(out[0].Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", out[0].Bytes())
	if r.DownlinkBudgetKBps != 4 {
		t.Errorf("budget %v kB/s, want 4: the scheduler did not engage", r.DownlinkBudgetKBps)
	}
	// A whole second may hold a burst (a quarter second of budget, or one datagram)
	// on top of its second's worth.
	if r.DownlinkKBpsMax > 4+1.3 {
		t.Errorf("an observer's downlink reached %.2f kB/s, over the 4 kB/s budget and its burst", r.DownlinkKBpsMax)
	}
	if r.Events == 0 || r.EventsLost != 0 {
		t.Errorf("%d events, %d lost; want some and none lost", r.Events, r.EventsLost)
	}
	if r.FarSamples == 0 || r.ScreenSamples == 0 || !(r.FarP95ErrM > 0) || !(r.P95ErrPx > 0) || !(r.MaxStateAgeS > 0) ||
		!(r.MaxSettledStateAgeS > 0) || r.MaxSettledStateAgeS > r.MaxStateAgeS {
		t.Errorf("measures missing: %+v", r)
	}
}

// TestCrowdOptionsChecked: bad options are errors, not runs.
func TestCrowdOptionsChecked(t *testing.T) {
	for _, o := range []CrowdOptions{
		{Tanks: 1},
		{Tanks: MaxCrowd + 1},
		{Tanks: 8, Duration: 3},
		{Tanks: 8, FPS: 5},
		{Tanks: 8, Observers: -1},
		{Tanks: 8, Network: impair.Link{Loss: 2}},
	} {
		if _, err := Crowd(context.Background(), o); err == nil {
			t.Errorf("%+v was accepted", o)
		}
	}
}

// TestCrowdPublishesAsTheGame: a crowd larger than the host's ZonesAbove hears from
// the host that its scheduler is on, and every tank then publishes with the game's
// large-match heartbeat copy (game.ZonedPublishing); a crowd of a small match's size
// hears nothing and copies none.
func TestCrowdPublishesAsTheGame(t *testing.T) {
	if testing.Short() {
		t.Skip("a crowd of 70 tanks for 7 s")
	}
	m, err := maps.Library{}.Load(crowdMap)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tanks int
		want  float64
	}{
		{70, game.ZonedHeartbeatCopy}, // above net.DefaultZonesAbove
		{12, deadreckon.Off},
	} {
		o := CrowdOptions{Tanks: tc.tanks, Observers: 2, Duration: 7, Seed: 5, FPS: 30,
			Network: impair.Link{Latency: 150 * time.Millisecond, Jitter: 30 * time.Millisecond, Loss: 0.1}}
		c, err := newCrowd(m, o, o.Seed)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.run(context.Background()); err != nil {
			t.Fatal(err)
		}
		for _, tk := range c.tanks {
			if got := tk.pub.Config().HeartbeatCopy; got != tc.want || tk.zoned != (tc.want != deadreckon.Off) {
				t.Errorf("%d tanks: tank %d zoned %v, HeartbeatCopy %v; want %v", tc.tanks, tk.actor, tk.zoned, got, tc.want)
				break
			}
		}
	}
}
