package net

// BenchmarkJoinOverBadLink measures joins over the worst links a player may ask for
// (cmd/tanks -lag, -jitter, -loss, -loss-burst). Run with
//
//	go test ./net -run '^$' -bench BenchmarkJoinOverBadLink -benchtime 1x
//
// Each iteration is joinBenchJoins joins per link; join-success is the share that got
// in, join-p95-s the 95th percentile of the time they took.

import (
	"context"
	"fmt"
	stdnet "net"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/treadline/treadline/net/impair"
)

// Sizes of the join benchmark: joins per link, and how many run at once (below the
// host's Retry threshold, so that each join meets a quiet host, as a player would).
const (
	joinBenchJoins      = 100
	joinBenchConcurrent = 6
)

// joinBenchLinks are the links the benchmark joins over: impairment each way.
var joinBenchLinks = []struct {
	name string
	link impair.Link
}{
	{"300ms±60ms-loss20%", impair.Link{Latency: 300 * time.Millisecond, Jitter: 60 * time.Millisecond, Loss: 0.2}},
	{"500ms-loss30%-burst3", impair.Link{Latency: 500 * time.Millisecond, Loss: 0.3, LossBurst: 3}},
}

// joinResult is one join's outcome.
type joinResult struct {
	took time.Duration
	err  error
}

// joinOverLink makes n joins to h over link, conc at a time, each from its own
// loopback /24 so that the host's per-prefix defences see one player each.
func joinOverLink(h *Host, link impair.Link, n, conc int, seed uint64) []joinResult {
	out := make([]joinResult, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				local := fmt.Sprintf("127.0.%d.%d", 10+i%200, 1+i/200)
				wrap := func(pc stdnet.PacketConn) (stdnet.PacketConn, error) {
					moved, err := fromAddr(local)(pc)
					if err != nil {
						return nil, err
					}
					return Impaired(link, seed+uint64(i))(moved)
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				start := time.Now()
				c, err := Dial(ctx, ClientConfig{Addr: h.Addr().String(), Fingerprint: h.Fingerprint(),
					Name: fmt.Sprintf("j%d", i), Passphrase: "sesame", Wrap: wrap})
				out[i] = joinResult{took: time.Since(start), err: err}
				cancel()
				if err == nil {
					c.Close()
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// joinFigures returns the share of joins that got in and the 95th percentile of
// their join times, s.
func joinFigures(rs []joinResult) (success, p95 float64) {
	var ok []float64
	for _, r := range rs {
		if r.err == nil {
			ok = append(ok, r.took.Seconds())
		}
	}
	if len(ok) == 0 {
		return 0, 0
	}
	slices.Sort(ok)
	return float64(len(ok)) / float64(len(rs)), percentile(ok, 0.95)
}

// failureCounts groups the failed joins' errors by text, most frequent first.
func failureCounts(rs []joinResult) string {
	n := map[string]int{}
	for _, r := range rs {
		if r.err != nil {
			n[r.err.Error()]++
		}
	}
	keys := make([]string, 0, len(n))
	for k := range n {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return n[keys[i]] > n[keys[j]] })
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "\n  %d× %s", n[k], k)
	}
	return b.String()
}

func BenchmarkJoinOverBadLink(b *testing.B) {
	for li, l := range joinBenchLinks {
		b.Run(l.name, func(b *testing.B) {
			h, err := Listen(context.Background(), HostConfig{Addr: "127.0.0.1:0", Passphrase: "sesame"})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			var all []joinResult
			for i := range b.N {
				all = append(all, joinOverLink(h, l.link, joinBenchJoins, joinBenchConcurrent,
					uint64(1000*li+100000*i))...)
			}
			success, p95 := joinFigures(all)
			b.ReportMetric(success, "join-success")
			b.ReportMetric(p95, "join-p95-s")
			var took []float64
			for _, r := range all {
				took = append(took, r.took.Seconds())
			}
			slices.Sort(took)
			b.Logf("%d joins: median %.2f s, max %.2f s; host %+v; failures:%s", len(all),
				percentile(took, 0.5), took[len(took)-1], h.Stats(), failureCounts(all))
		})
	}
}
