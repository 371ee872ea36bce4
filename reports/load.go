package reports

import (
	"slices"
	"time"
)

// Load is the traffic of a load-driven check bucketed over time, so a reader
// sees the rate and latency move as faults start and stop. Every side shares
// Start and Bucket and has one point per bucket.
type Load struct {
	Start  Duration   `json:"start"`  // run offset of the first bucket
	Bucket Duration   `json:"bucket"` // width of every bucket
	Sides  []LoadSide `json:"sides"`
}

// LoadSide is the series one proxy (front, dependency) saw.
type LoadSide struct {
	Side   string      `json:"side"`
	Points []LoadPoint `json:"points"`
}

// LoadPoint counts the exchanges received in one bucket by outcome, with the
// median and the longest time they took; an empty bucket is all zeros.
type LoadPoint struct {
	OK      int      `json:"ok,omitempty"`      // 1xx to 3xx
	Refused int      `json:"refused,omitempty"` // 429
	Failed  int      `json:"failed,omitempty"`  // any other status, or no response
	P50     Duration `json:"p50,omitempty"`
	Max     Duration `json:"max,omitempty"`
}

// Sent is the number of exchanges in the bucket.
func (p LoadPoint) Sent() int { return p.OK + p.Refused + p.Failed }

// Load series geometry: a check is load-driven when it made at least
// loadMinExchanges exchanges over loadMinSpan or more, and its series has
// at most loadMaxBuckets buckets of a 1-2-5 width.
const (
	loadMinExchanges = 100
	loadMinSpan      = time.Second
	loadMaxBuckets   = 40
)

// NewLoad buckets ev by the time each exchange was received, per side in
// the order client, front, dependency. It returns nil for fewer than 100
// exchanges or a span under a second: such a check is not load-driven (a
// burst of set-up requests, say), and a rate over a few milliseconds
// would mislead.
func NewLoad(ev []Exchange) *Load {
	if len(ev) < loadMinExchanges {
		return nil
	}
	start, end := ev[0].At, ev[0].At
	for _, e := range ev {
		start, end = min(start, e.At), max(end, e.At)
	}
	if end-start < Duration(loadMinSpan) {
		return nil // too short, or offsets so far apart their span overflows: not a run's
	}
	bucket := loadBucket(time.Duration(end - start))
	n := int(time.Duration(end-start)/bucket) + 1
	l := &Load{Start: start, Bucket: Duration(bucket)}
	took := map[string][][]Duration{}
	for _, e := range ev {
		i := slices.IndexFunc(l.Sides, func(s LoadSide) bool { return s.Side == e.Side })
		if i < 0 {
			i = len(l.Sides)
			l.Sides = append(l.Sides, LoadSide{Side: e.Side, Points: make([]LoadPoint, n)})
			took[e.Side] = make([][]Duration, n)
		}
		b := int(time.Duration(e.At-start) / bucket)
		p := &l.Sides[i].Points[b]
		switch {
		case e.Status == 429:
			p.Refused++
		case e.Status >= 100 && e.Status < 400:
			p.OK++
		default:
			p.Failed++
		}
		took[e.Side][b] = append(took[e.Side][b], max(e.Took, 0))
	}
	for i, s := range l.Sides {
		for b, ds := range took[s.Side] {
			if len(ds) > 0 {
				slices.Sort(ds)
				l.Sides[i].Points[b].P50, l.Sides[i].Points[b].Max = ds[(len(ds)-1)/2], ds[len(ds)-1]
			}
		}
	}
	slices.SortStableFunc(l.Sides, func(a, b LoadSide) int { return sideOrder(a.Side) - sideOrder(b.Side) })
	return l
}

// loadBucket is the narrowest 1-2-5 width (10 ms at least) that splits span
// into at most loadMaxBuckets buckets. It ends for any span: at a width of
// 1e18 ns the largest Duration makes 9 buckets.
func loadBucket(span time.Duration) time.Duration {
	for mag := 10 * time.Millisecond; ; mag *= 10 {
		for _, m := range []time.Duration{1, 2, 5} {
			if w := m * mag; span/w < loadMaxBuckets {
				return w
			}
		}
	}
}

// sideOrder ranks the sides as a request travels; others come last.
func sideOrder(side string) int {
	if r, ok := rankOf(side); ok {
		return r
	}
	return len(sideRank)
}
