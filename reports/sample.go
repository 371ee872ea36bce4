package reports

// faultRadius is how many exchanges on each side of an injected fault a
// sample keeps: the attempt before, the retries and the answer after.
const faultRadius = 3

// SampleEvidence returns at most limit exchanges of ev, in their order.
// When it must drop some it keeps every injected fault (an even spread of
// them when there are more than limit/2) with the exchanges nearest each
// one, then fills what is left from both ends, the last exchanges first.
// ev is not modified; the result shares no backing array with it.
func SampleEvidence(ev []Exchange, limit int) []Exchange {
	if len(ev) <= limit {
		return append([]Exchange(nil), ev...)
	}
	keep := make([]bool, len(ev))
	budget := limit
	take := func(i int) {
		if budget > 0 && i >= 0 && i < len(ev) && !keep[i] {
			keep[i], budget = true, budget-1
		}
	}
	anchors := faultAnchors(ev, limit/2)
	for _, a := range anchors {
		take(a)
	}
	for d := 1; d <= faultRadius; d++ {
		for _, a := range anchors {
			take(a - d)
			take(a + d)
		}
	}
	for lo, hi := 0, len(ev)-1; budget > 0 && lo <= hi; lo, hi = lo+1, hi-1 {
		take(hi)
		take(lo)
	}
	out := make([]Exchange, 0, limit)
	for i, k := range keep {
		if k {
			out = append(out, ev[i])
		}
	}
	return out
}

// faultAnchors returns the indices of the faulted exchanges, at most n of
// them evenly spread.
func faultAnchors(ev []Exchange, n int) []int {
	var all []int
	for i, e := range ev {
		if e.Fault != "" {
			all = append(all, i)
		}
	}
	if len(all) <= n {
		return all
	}
	out := make([]int, n)
	for i := range out {
		out[i] = all[i*len(all)/n]
	}
	return out
}
