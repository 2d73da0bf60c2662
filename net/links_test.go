package net

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/treadline/treadline/internal/poll"
)

// linkJudge is a quietJudge that keeps the links the host hands it.
type linkJudge struct {
	quietJudge
	mu    sync.Mutex
	last  []PlayerLink
	calls int
}

func (j *linkJudge) Links(links []PlayerLink, at float64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.last = append(j.last[:0], links...)
	j.calls++
}

// TestLinksHandedToTheJudge: a judge that watches links hears, about once a
// LinkPeriod, every player with the name it joined with and its measured round trip,
// the host's own player in process.
func TestLinksHandedToTheJudge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		j := &linkJudge{}
		h := simHost(t, HostConfig{Judge: j})
		testClient(t, h, ClientConfig{Name: "ann", KnownHosts: "-"})
		var ann PlayerLink
		poll.Until(t, 10*time.Second, "ann's link handed to the judge", func() bool {
			j.mu.Lock()
			defer j.mu.Unlock()
			for _, l := range j.last {
				if l.Name == "ann" && l.RTT > 0 {
					ann = l
					return true
				}
			}
			return false
		})
		if ann.InProcess || ann.ID == 0 || ann.RTT > time.Second {
			t.Errorf("ann's link %+v, want a remote player with a loopback round trip", ann)
		}
		j.mu.Lock()
		defer j.mu.Unlock()
		for _, l := range j.last {
			if l.ID == 0 && (!l.InProcess || l.RTT != 0) {
				t.Errorf("the host's own player %+v, want in process with no round trip", l)
			}
		}
	})
}
