package properties

import (
	"sync"

	"pgregory.net/rapid"
)

// ExploreEach explores one property with a worker per prop, side by side:
// props[w] is worker w's case function (each drives a copy of the target of
// its own), run by Explore with seed WorkerSeed(cfg.Seed, w) under cfg's
// budget or case count (the Floor shared among them). Workers draw
// different cases, so n of them draw about n times the cases of one in the
// same time. The result counts every worker's cases and tells the
// lowest-numbered failing worker's failure. A replay with the same seed and
// workers and Checks set to its FailedCase fails that worker at that case
// again; a lower-numbered worker the budget had stopped sooner may then
// fail first, and its failure is the one told.
func ExploreEach(name string, cfg Config, props []func(*rapid.T) bool) Result {
	if len(props) == 1 {
		r := Explore(name, cfg, props[0])
		r.Workers = 1
		return r
	}
	minCases := cfg.withDefaults().MinCases
	each := make([]Result, len(props))
	var wg sync.WaitGroup
	for w, prop := range props {
		wc := cfg
		wc.Seed = WorkerSeed(cfg.Seed, w)
		wc.MinCases = 1 // judged on the sum below
		wc.Floor = (cfg.Floor + len(props) - 1) / len(props)
		wc.sideBySide = true
		wg.Go(func() { each[w] = Explore(name, wc, prop) })
	}
	wg.Wait()
	out := Result{Name: name, Seed: cfg.Seed, Workers: len(props)}
	failed := -1
	for w, r := range each {
		out.Cases += r.Cases
		out.Meaningful += r.Meaningful
		if r.Failed && failed < 0 {
			failed = w
		}
	}
	if failed >= 0 {
		r := each[failed]
		r.Cases, r.Meaningful, r.Workers, r.Worker = out.Cases, out.Meaningful, out.Workers, failed
		return r
	}
	for _, r := range each {
		out.Logs = append(out.Logs, r.Logs...)
	}
	out.Message = each[0].Message
	out.Inconclusive = out.Meaningful < minCases
	return out
}

// WorkerSeed is worker w's seed in a run seeded with seed: the seed itself
// for worker 0, so one worker explores exactly as Explore does.
func WorkerSeed(seed uint64, w int) uint64 {
	if seed == 0 {
		seed = 1 // Explore's default, so worker 0 keeps it
	}
	// The golden-ratio step of SplitMix64 keeps the workers' seeds apart.
	if s := seed + uint64(w)*0x9E3779B97F4A7C15; s != 0 {
		return s
	}
	return 1
}
