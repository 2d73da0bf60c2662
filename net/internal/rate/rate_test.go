package rate

import (
	"fmt"
	"math"
	"testing"
)

func TestBucket(t *testing.T) {
	b := NewBucket(10, 5, 0)
	n := 0
	for range 20 {
		if b.Take(0) {
			n++
		}
	}
	if n != 5 {
		t.Errorf("burst admitted %d, want 5", n)
	}
	n = 0
	for i := 1; i <= 100; i++ { // one second in 10 ms steps
		if b.Take(float64(i) * 0.01) {
			n++
		}
	}
	if n < 9 || n > 11 {
		t.Errorf("one second at 10/s admitted %d", n)
	}
}

func TestBucketWaitAndFull(t *testing.T) {
	for _, tc := range []struct {
		name       string
		rate, take float64 // tokens per second; tokens taken at time 0
		at         float64
		wait       float64
		full       bool
	}{
		{"untouched", 2, 0, 0, 0, true},
		{"one taken, at once", 2, 1, 0, 0, false},
		{"all taken, at once", 2, 4, 0, 0.5, false},
		{"all taken, a quarter second on", 2, 4, 0.25, 0.25, false},
		{"all taken, two seconds on", 2, 4, 2, 0, true},
		{"earning nothing", 0, 4, 10, math.Inf(1), false},
	} {
		b := NewBucket(tc.rate, 4, 0)
		for range int(tc.take) {
			b.Take(0)
		}
		if got := b.Wait(tc.at); math.Abs(got-tc.wait) > 1e-9 && !(math.IsInf(got, 1) && math.IsInf(tc.wait, 1)) {
			t.Errorf("%s: Wait(%v) = %v, want %v", tc.name, tc.at, got, tc.wait)
		}
		if got := b.Full(tc.at); got != tc.full {
			t.Errorf("%s: Full(%v) = %v, want %v", tc.name, tc.at, got, tc.full)
		}
	}
	var zero Bucket
	if zero.Take(100) {
		t.Error("the zero Bucket admitted a token")
	}
}

func TestMeter(t *testing.T) {
	var r Meter
	for i := range 500 { // 100 events per second for 5 s
		r.Add(1, float64(i)*0.01)
	}
	if got := r.Value(5); math.Abs(got-100) > 5 {
		t.Errorf("rate %v after 5 s at 100/s, want 100 ± 5", got)
	}
	if got := r.Value(20); got > 1 {
		t.Errorf("rate %v after 15 s idle, want ≈ 0", got)
	}
}

// A host admits a client's updates through a bucket: a burst at once, then the rate.
func ExampleBucket() {
	b := NewBucket(20, 10, 0) // 20 per second, 10 deep
	admitted := 0
	for range 50 {
		if b.Take(0) {
			admitted++
		}
	}
	fmt.Println(admitted, "at once;", b.Wait(0), "s to the next")
	// Output: 10 at once; 0.05 s to the next
}

func TestBucketBytes(t *testing.T) {
	b := NewBucket(1000, 250, 0) // 1000 bytes/s, a quarter second deep
	if !b.TakeN(200, 0) || b.TakeN(100, 0) {
		t.Fatalf("a 250-byte bucket: 200 then 100 bytes: tokens %v", b.Tokens(0))
	}
	b.Spend(100, 0) // 50 - 100
	if got := b.Tokens(0); got != -50 {
		t.Errorf("spent into debt: %v tokens, want -50", got)
	}
	if got := b.Tokens(0.1); got != 50 {
		t.Errorf("0.1 s later: %v tokens, want 50", got)
	}
	if got := b.Tokens(10); got != 250 {
		t.Errorf("refilled: %v tokens, want the burst 250", got)
	}
}
