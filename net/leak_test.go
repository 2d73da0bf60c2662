package net

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// checkNoLeaks records the goroutines running now and, at cleanup, fails the test if
// goroutines started since then are still running after a grace period. Call it first
// in a test so that its cleanup runs last.
func checkNoLeaks(t *testing.T) {
	t.Helper()
	before := goroutineIDs()
	t.Cleanup(func() {
		var extra []string
		deadline := time.Now().Add(3 * time.Second)
		for {
			extra = extra[:0]
			for id, stack := range goroutineStacks() {
				if _, ok := before[id]; !ok && !benign(stack) {
					extra = append(extra, stack)
				}
			}
			if len(extra) == 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if len(extra) > 0 {
			t.Errorf("%d goroutines leaked; first:\n%s", len(extra), extra[0])
		}
	})
}

func benign(stack string) bool {
	return strings.Contains(stack, "testing.(*T).Run") || strings.Contains(stack, "testing.tRunner") && strings.Contains(stack, "testing.runTests")
}

func goroutineIDs() map[string]struct{} {
	ids := map[string]struct{}{}
	for id := range goroutineStacks() {
		ids[id] = struct{}{}
	}
	return ids
}

// goroutineStacks returns every goroutine's stack keyed by its "goroutine N" header.
func goroutineStacks() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := map[string]string{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		head, _, _ := strings.Cut(g, " [")
		out[head] = g
	}
	return out
}
