package faults

import (
	"context"
	"maps"
	"sync"
	"time"
)

// DefaultJournalCapacity is the number of entries a journal keeps when
// WithCapacity is not given.
const DefaultJournalCapacity = 20000

// Journal is a bounded, ordered history of exchanges, shared by any number
// of proxies (front and dependency). It keeps the newest entries in a ring
// and counts the ones it had to drop. It is safe for concurrent use.
type Journal struct {
	mu      sync.Mutex
	start   time.Time
	ring    []Entry // grows lazily up to limit so an idle journal stays small
	limit   int
	next    uint64 // Seq of the next entry
	dropped uint64
	wake    chan struct{}
	seeds   map[string]uint64
}

// JournalOption configures NewJournal.
type JournalOption func(*journalConfig)

type journalConfig struct {
	capacity int
	clock    Clock
}

// WithCapacity bounds the journal to n entries (n <= 0 keeps the default).
func WithCapacity(n int) JournalOption {
	return func(c *journalConfig) {
		if n > 0 {
			c.capacity = n
		}
	}
}

// WithJournalClock sets the clock that stamps the journal's start.
func WithJournalClock(clk Clock) JournalOption { return func(c *journalConfig) { c.clock = clk } }

// NewJournal returns an empty journal whose start is now.
func NewJournal(opts ...JournalOption) *Journal {
	cfg := journalConfig{capacity: DefaultJournalCapacity, clock: SystemClock()}
	for _, o := range opts {
		o(&cfg)
	}
	return &Journal{
		start: cfg.clock.Now(),
		ring:  make([]Entry, 0, min(cfg.capacity, 1024)),
		limit: cfg.capacity,
		next:  1,
		wake:  make(chan struct{}),
		seeds: map[string]uint64{},
	}
}

// Start returns the instant offsets in the JSON form are measured from.
func (j *Journal) Start() time.Time { return j.start }

// Record appends e, assigning Seq and Start, and returns the stored entry.
// When full, the oldest entry is dropped and counted.
func (j *Journal) Record(e Entry) Entry {
	j.mu.Lock()
	e.Seq = j.next
	e.Start = j.start
	j.next++
	j.push(e)
	if e.Side != "" {
		j.seeds[e.Side] = e.Seed
	}
	wake := j.wake
	j.wake = make(chan struct{})
	j.mu.Unlock()
	close(wake)
	return e
}

func (j *Journal) push(e Entry) {
	if len(j.ring) < j.limit {
		j.ring = append(j.ring, e)
		return
	}
	j.ring[(e.Seq-1)%uint64(len(j.ring))] = e
	j.dropped++
}

// Len returns the number of entries held.
func (j *Journal) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.ring)
}

// Dropped returns how many entries were evicted because the journal was full.
func (j *Journal) Dropped() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.dropped
}

// Seeds returns the seed each side recorded with.
func (j *Journal) Seeds() map[string]uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return maps.Clone(j.seeds)
}

// noteSeed lets a proxy register its seed before any traffic.
func (j *Journal) noteSeed(side string, seed uint64) {
	j.mu.Lock()
	j.seeds[side] = seed
	j.mu.Unlock()
}

// Snapshot returns a copy of the entries held, oldest first, that pass every
// filter.
func (j *Journal) Snapshot(filters ...Filter) []Entry { return j.After(0, filters...) }

// After returns the entries with Seq > seq that pass every filter, oldest first.
func (j *Journal) After(seq uint64, filters ...Filter) []Entry {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.afterLocked(seq, filters)
}

func (j *Journal) afterLocked(seq uint64, filters []Filter) []Entry {
	n := uint64(len(j.ring))
	first := j.next - n // Seq of the oldest held entry
	if seq+1 > first {
		first = seq + 1
	}
	var out []Entry
	if len(filters) == 0 && first < j.next {
		out = make([]Entry, 0, j.next-first) // every held entry after seq
	}
	for s := first; s < j.next; s++ {
		e := &j.ring[(s-1)%n]
		if all(filters, e) {
			out = append(out, *e)
		}
	}
	return out
}

// Next blocks until at least one entry with Seq > seq passes the filters,
// then returns all such entries; it returns ctx's error if ctx ends first.
// Poll by passing the Seq of the last entry seen.
func (j *Journal) Next(ctx context.Context, seq uint64, filters ...Filter) ([]Entry, error) {
	for {
		j.mu.Lock()
		out := j.afterLocked(seq, filters)
		wake := j.wake
		if len(out) == 0 {
			seq = max(seq, j.next-1)
		}
		j.mu.Unlock()
		if len(out) > 0 {
			return out, nil
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Await blocks until at least n held entries pass the filters and returns
// them all, or returns ctx's error. An entry is recorded as its exchange
// ends, which can be a moment after the client read a complete response:
// checks should Await what they expect rather than read a Snapshot at once.
func (j *Journal) Await(ctx context.Context, n int, filters ...Filter) ([]Entry, error) {
	for {
		j.mu.Lock()
		out := j.afterLocked(0, filters)
		wake := j.wake
		j.mu.Unlock()
		if len(out) >= n {
			return out, nil
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return out, ctx.Err()
		}
	}
}
