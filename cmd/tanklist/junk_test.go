package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestJunkRegistrations: registrations from 2 000 sources, each a burst of junk
// (malformed, unsigned, signed for addresses where nothing answers), leave the
// list empty and what it remembers bounded.
func TestJunkRegistrations(t *testing.T) {
	cfg := testConfig()
	cfg.allowPrivate = true
	cfg.probe = func(context.Context, string, string) (time.Duration, error) { return 0, errors.New("nobody") }
	s := newServer(cfg, newMemStore(cfg.maxMatches))
	signed := registrationBody(t, 7777, "198.51.100.1")
	unsigned := strings.Replace(signed, `"sig":`, `"x":`, 1)
	before := heapAndStacks()
	const sources = 2000
	for i := range sources {
		src := fmt.Sprintf("10.%d.%d.1:5000", i/256, i%256)
		for j := range DefaultRegisterBurst {
			body := []string{"{", unsigned, registrationBody(t, 1000+j, fmt.Sprintf("10.%d.%d.%d", i/256, i%256, 2+j))}[j%3]
			serveRegistration(s, src, body)
		}
	}
	after := heapAndStacks()
	t.Logf("%d junk registrations from %d sources: heap and stacks %.1f → %.1f MB; %d sources tracked, %d failed checks remembered",
		sources*DefaultRegisterBurst, sources, float64(before)/1e6, float64(after)/1e6, len(s.register.b), len(s.failed))
	if n := len(s.page().Matches); n != 0 {
		t.Errorf("%d junk listings", n)
	}
	if len(s.register.b) > maxTracked || len(s.failed) > maxTracked || len(s.targets.b) > maxTracked {
		t.Errorf("remembers %d sources, %d failed checks, %d probed targets; want at most %d each",
			len(s.register.b), len(s.failed), len(s.targets.b), maxTracked)
	}
	if grew := int64(after) - int64(before); grew > 8<<20 {
		t.Errorf("junk grew the heap and stacks by %.1f MB", float64(grew)/1e6)
	}
}
