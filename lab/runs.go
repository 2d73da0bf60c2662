package lab

import (
	"fmt"
	"math"
)

// maxRuns is the most seeds one comparison may average over.
const maxRuns = 1000

// simulateRuns plays the setup once per seed s.Seed, s.Seed+1, … (runs of them; zero
// means one) and combines the results: means of the mean, p95, heading, jerk, rate and
// past-error figures, the largest of the maxima (error, jump, pop, dv, depth), sums of the counts. MeanErrSDM is
// the spread of the per-seed mean errors, which says how much a single seed can be
// trusted on a lossy or jittery link. The start delay's p95 is taken over the starts
// of every run, the overshoot is the largest. The Record, when asked for, is the
// first seed's.
func simulateRuns(s Setup, runs int) (Result, error) {
	var sc scratch
	return sc.simulateRuns(s, runs)
}

func (sc *scratch) simulateRuns(s Setup, runs int) (Result, error) {
	if runs < 0 || runs > maxRuns {
		return Result{}, fmt.Errorf("simulate: %d runs is outside 0..%d", runs, maxRuns)
	}
	if runs <= 1 {
		r, err := sc.simulate(s)
		r.Runs = 1
		return r, err
	}
	var acc Result
	var means []float64
	sc.delays, sc.turnDelays = sc.delays[:0], sc.turnDelays[:0]
	for k := 0; k < runs; k++ {
		run := s
		run.Seed = s.Seed + uint64(k)
		run.Record = s.Record && k == 0
		r, err := sc.simulate(run)
		if err != nil {
			return Result{}, fmt.Errorf("seed %d: %w", run.Seed, err)
		}
		means = append(means, r.MeanErrM)
		sc.delays = append(sc.delays, sc.player.delays...)
		sc.turnDelays = append(sc.turnDelays, sc.turns.delays...)
		if k == 0 {
			acc = r
			acc.MeanErrPastM, acc.P95ErrPastM = copyPtr(r.MeanErrPastM), copyPtr(r.P95ErrPastM)
			acc.MaxDepthM, acc.BelowGroundShare = copyPtr(r.MaxDepthM), copyPtr(r.BelowGroundShare)
			acc.MaxUnderTruthM = copyPtr(r.MaxUnderTruthM)
			continue
		}
		acc.Frames += r.Frames
		acc.MeanErrM += r.MeanErrM
		acc.P95ErrM += r.P95ErrM
		acc.MaxErrM = math.Max(acc.MaxErrM, r.MaxErrM)
		acc.MeanHeadingDeg += r.MeanHeadingDeg
		acc.MaxJumpM = math.Max(acc.MaxJumpM, r.MaxJumpM)
		acc.MaxPopM = math.Max(acc.MaxPopM, r.MaxPopM)
		acc.MaxDVMPS = math.Max(acc.MaxDVMPS, r.MaxDVMPS)
		acc.RMSJerk += r.RMSJerk
		acc.UpdatesPerS += r.UpdatesPerS
		acc.BytesPerS += r.BytesPerS
		acc.BytesPerUpdate += r.BytesPerUpdate
		acc.Sent += r.Sent
		acc.Lost += r.Lost
		acc.Rejected += r.Rejected
		acc.EncodeErrors += r.EncodeErrors
		acc.MaxOvershootM = math.Max(acc.MaxOvershootM, r.MaxOvershootM)
		acc.Stops += r.Stops
		acc.Starts += r.Starts
		acc.MaxHeadingOvershootDeg = math.Max(acc.MaxHeadingOvershootDeg, r.MaxHeadingOvershootDeg)
		acc.Turns += r.Turns
		acc.StalePerMin += r.StalePerMin
		acc.ReversalCount += r.ReversalCount
		acc.staleHeard += r.staleHeard
		addPtr(acc.MeanErrPastM, r.MeanErrPastM)
		addPtr(acc.P95ErrPastM, r.P95ErrPastM)
		addPtr(acc.BelowGroundShare, r.BelowGroundShare)
		if acc.MaxDepthM != nil && r.MaxDepthM != nil {
			*acc.MaxDepthM = math.Max(*acc.MaxDepthM, *r.MaxDepthM)
		}
		if acc.MaxUnderTruthM != nil && r.MaxUnderTruthM != nil {
			*acc.MaxUnderTruthM = math.Max(*acc.MaxUnderTruthM, *r.MaxUnderTruthM)
		}
	}
	n := float64(runs)
	if len(sc.delays) > 0 {
		acc.StartDelayP95S = percentile(sc.delays, 0.95)
	}
	if len(sc.turnDelays) > 0 {
		acc.TurnStopDelayP95S = percentile(sc.turnDelays, 0.95)
	}
	for _, v := range []*float64{&acc.MeanErrM, &acc.P95ErrM, &acc.MeanHeadingDeg, &acc.RMSJerk,
		&acc.StalePerMin, &acc.ReversalCount, &acc.UpdatesPerS, &acc.BytesPerS, &acc.BytesPerUpdate, acc.MeanErrPastM, acc.P95ErrPastM, acc.BelowGroundShare} {
		if v != nil {
			*v /= n
		}
	}
	mean := acc.MeanErrM
	ss := 0.0
	for _, m := range means {
		ss += (m - mean) * (m - mean)
	}
	acc.MeanErrSDM = math.Sqrt(ss / (n - 1))
	acc.Runs = runs
	return acc, nil
}

func copyPtr(p *float64) *float64 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func addPtr(dst, src *float64) {
	if dst != nil && src != nil {
		*dst += *src
	}
}
