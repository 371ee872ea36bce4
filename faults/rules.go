package faults

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
)

// Rules is a proxy's ordered rule set. It is safe for concurrent use and may
// change while traffic flows: each request is matched against the set as it
// was when the request arrived, so in-flight requests are never dropped.
type Rules struct {
	seed    uint64
	writeMu sync.Mutex
	cur     atomic.Pointer[[]*ruleState]
}

// RuleStats counts what a rule did since it was added.
type RuleStats struct {
	Name string `json:"name"`
	// Matched counts requests that passed the rule's method, path and header
	// criteria while it was evaluated.
	Matched uint64 `json:"matched"`
	// Injected counts requests the rule's fault handled.
	Injected uint64 `json:"injected"`
}

// ruleState is one added rule with its counters and its own random stream,
// so a rule's decisions do not depend on which other rules exist.
type ruleState struct {
	Rule
	key     uint64
	mu      sync.Mutex
	rng     *rand.Rand
	seen    uint64
	faulted uint64
	removed chan struct{}
}

func newRules(seed uint64) *Rules {
	rs := &Rules{seed: seed}
	rs.cur.Store(&[]*ruleState{})
	return rs
}

func (rs *Rules) newState(r Rule) *ruleState {
	h := fnv.New64a()
	h.Write([]byte(r.Name))
	key := h.Sum64()
	return &ruleState{Rule: r, key: key, rng: rand.New(rand.NewPCG(rs.seed, key)), removed: make(chan struct{})}
}

// Add validates r and appends it after the existing rules. A rule with the
// same name is ErrDuplicateRule; counters start at zero.
func (rs *Rules) Add(r Rule) error {
	if err := r.Validate(); err != nil {
		return err
	}
	rs.writeMu.Lock()
	defer rs.writeMu.Unlock()
	old := *rs.cur.Load()
	if slices.ContainsFunc(old, func(s *ruleState) bool { return s.Name == r.Name }) {
		return fmt.Errorf("%w %q", ErrDuplicateRule, r.Name)
	}
	next := append(slices.Clip(old), rs.newState(r))
	rs.cur.Store(&next)
	return nil
}

// Replace validates every rule and then swaps the whole set atomically; on
// error nothing changes. Held requests of removed rules are released.
func (rs *Rules) Replace(rules ...Rule) error {
	next := make([]*ruleState, 0, len(rules))
	seen := map[string]bool{}
	for _, r := range rules {
		if err := r.Validate(); err != nil {
			return err
		}
		if seen[r.Name] {
			return fmt.Errorf("%w %q", ErrDuplicateRule, r.Name)
		}
		seen[r.Name] = true
		next = append(next, rs.newState(r))
	}
	rs.writeMu.Lock()
	old := *rs.cur.Swap(&next)
	rs.writeMu.Unlock()
	for _, s := range old {
		close(s.removed)
	}
	return nil
}

// Remove deletes the named rule and reports whether it existed. Requests it
// is holding (blackhole) are released.
func (rs *Rules) Remove(name string) bool {
	rs.writeMu.Lock()
	defer rs.writeMu.Unlock()
	old := *rs.cur.Load()
	i := slices.IndexFunc(old, func(s *ruleState) bool { return s.Name == name })
	if i < 0 {
		return false
	}
	next := slices.Delete(slices.Clone(old), i, i+1)
	rs.cur.Store(&next)
	close(old[i].removed)
	return true
}

// Reset removes every rule.
func (rs *Rules) Reset() { _ = rs.Replace() }

// List returns the rules in evaluation order.
func (rs *Rules) List() []Rule {
	cur := *rs.cur.Load()
	out := make([]Rule, len(cur))
	for i, s := range cur {
		out[i] = s.Rule
	}
	return out
}

// Stats returns the counters of every rule, in evaluation order.
func (rs *Rules) Stats() []RuleStats {
	cur := *rs.cur.Load()
	out := make([]RuleStats, len(cur))
	for i, s := range cur {
		s.mu.Lock()
		out[i] = RuleStats{Name: s.Name, Matched: s.seen, Injected: s.faulted}
		s.mu.Unlock()
	}
	return out
}

// match returns the first rule that takes r, and the ordinal of r among the
// requests that rule counted, or nil.
func (rs *Rules) match(r *http.Request) (*ruleState, uint64) {
	for _, s := range *rs.cur.Load() {
		if !s.Match.static(r) {
			continue
		}
		if n, ok := s.take(); ok {
			return s, n
		}
	}
	return nil, 0
}

// mayMatch reports, without counting or drawing, whether some rule's static
// criteria (method, path, headers) pass r: only then can match take it.
func (rs *Rules) mayMatch(r *http.Request) bool {
	return slices.ContainsFunc(*rs.cur.Load(), func(s *ruleState) bool { return s.Match.static(r) })
}

// take counts one request and decides whether the rule faults it. The
// counter and the random draw share one lock so the n-th request always
// sees the n-th draw.
func (s *ruleState) take() (uint64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen++
	n := s.seen
	if !s.Match.counted(n) || (s.Match.Limit > 0 && s.faulted >= uint64(s.Match.Limit)) {
		return n, false
	}
	if p := s.Match.Probability; p > 0 && p < 1 && s.rng.Float64() >= p {
		return n, false
	}
	s.faulted++
	return n, true
}
