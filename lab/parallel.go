package lab

import (
	"context"
	"runtime"
	"sync"
)

// forEach calls job(sc, i) for i in [0, n) on up to GOMAXPROCS goroutines, each with
// its own scratch buffers, and returns the error of the lowest-numbered job that
// failed (or ctx's error). Jobs write their results by index, so the output does not
// depend on scheduling.
func forEach(ctx context.Context, n int, job func(sc *scratch, i int) error) error {
	workers := max(1, min(n, runtime.GOMAXPROCS(0)))
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sc scratch
			for i := range next {
				if err := ctx.Err(); err != nil {
					errs[i] = err
					continue
				}
				errs[i] = job(&sc, i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}
