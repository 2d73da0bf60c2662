package net

// Full-size attack measurements, against a host in a child process so that its
// resident memory is its own. Run with
//
//	go test -run='^$' -bench=Attack -benchtime=1x ./net/
//
// Each iteration is one whole attack; the figures are ReportMetric'd.

import (
	"context"
	"testing"
	"time"
)

// floodReport is what one flood did to the host.
type floodReport struct {
	baseRSS, peakRSS, afterRSS    int64 // before, during and 10 s after the attack
	baseHeap, peakHeap, afterHeap int64
	peakGoroutines                int
	p99Before                     time.Duration // honest delay in the 3 s before the attack
	p99                           time.Duration // honest delay during the attack
	received, sent                int           // honest updates observed, published
	reflection                    float64
	joins, joinTries              int // honest joins from another prefix during the attack
}

func (r floodReport) report(b *testing.B) {
	b.ReportMetric(mb(r.baseRSS), "base-rss-MB")
	b.ReportMetric(mb(r.peakRSS), "peak-rss-MB")
	b.ReportMetric(mb(r.afterRSS), "rss-10s-after-MB")
	b.ReportMetric(mb(r.baseHeap), "base-heap-MB")
	b.ReportMetric(mb(r.peakHeap), "peak-heap-MB")
	b.ReportMetric(mb(r.afterHeap), "heap-10s-after-MB")
	b.ReportMetric(float64(r.peakGoroutines), "peak-goroutines")
	b.ReportMetric(float64(r.p99.Microseconds())/1000, "honest-p99-ms")
	b.ReportMetric(float64(r.p99Before.Microseconds())/1000, "honest-p99-before-ms")
	b.ReportMetric(float64(r.received)/float64(max(1, r.sent)), "honest-delivered")
	b.ReportMetric(r.reflection, "reflection")
	b.ReportMetric(float64(r.joins)/float64(max(1, r.joinTries)), "honest-joins-ok")
	b.Logf("load average %s; %+v", loadAverage(), r)
}

// measureFlood runs attack (which returns when its flood is over) against a host,
// with honest players joined before, honest joins from another prefix once a second
// during the attack, and 10 s of recovery after it.
func measureFlood(t testing.TB, r *rigHost, attack func(ctx context.Context) *attackSocket) floodReport {
	hp := startHonest(t, r, "127.0.2.1", "")
	time.Sleep(500 * time.Millisecond)
	var rep floodReport
	before := time.Now()
	time.Sleep(3 * time.Second)
	rep.baseRSS, rep.baseHeap = r.fp0.last().rss, r.fp0.last().heap
	start := time.Now()
	rep.p99Before, _, _ = hp.p99(before, start)
	ctx, cancel := context.WithCancel(context.Background())
	joinsDone := make(chan struct{})
	go func() {
		defer close(joinsDone)
		for i := 0; ctx.Err() == nil; i++ {
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
			jctx, jcancel := context.WithTimeout(context.Background(), 5*time.Second)
			c, err := r.dial(jctx, "127.0.1.1", "joiner", "")
			jcancel()
			rep.joinTries++
			if err == nil {
				rep.joins++
				c.Close()
			} else {
				t.Logf("honest join during the attack: %v", err)
			}
		}
	}()
	sock := attack(ctx)
	end := time.Now()
	cancel()
	<-joinsDone
	rep.p99, rep.received, rep.sent = hp.p99(start, end)
	rep.reflection = sock.reflection()
	time.Sleep(10 * time.Second)
	p := r.fp0.peak(start, time.Now())
	rep.peakRSS, rep.peakHeap, rep.peakGoroutines = p.rss, p.heap, p.goroutines
	rep.afterRSS, rep.afterHeap = r.fp0.last().rss, r.fp0.last().heap
	return rep
}

func BenchmarkAttackForgedInitials(b *testing.B) {
	for range b.N {
		r := childHost(b, "")
		rep := measureFlood(b, r, func(ctx context.Context) *attackSocket {
			s := newAttackSocket(b, "127.0.0.9", r.addr, false)
			floodForgedInitials(ctx, s, 30000, 10*time.Second)
			return s
		})
		rep.report(b)
	}
}

func BenchmarkAttackClientHellos(b *testing.B) {
	for range b.N {
		r := childHost(b, "")
		rep := measureFlood(b, r, func(ctx context.Context) *attackSocket {
			s := newAttackSocket(b, "127.0.0.9", r.addr, true)
			floodClientHellos(b, ctx, s, 1000, 10*time.Second)
			return s
		})
		rep.report(b)
	}
}
