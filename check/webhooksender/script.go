package webhooksender

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"

	"github.com/resilcheck/resilcheck/faults"
)

// script is the endpoint's answer to a case's events: the first n
// deliveries of each event get fault, and every other delivery (another
// case's late retry, an event's later attempts) passes to the endpoint,
// which accepts it. The case's events are the first events (one, unless
// set) whose body is not in seen; n <= 0 means every delivery of them.
// Safe for concurrent use; the zero script passes every delivery.
type script struct {
	seen   map[string]bool // read only
	events int
	n      int
	fault  faults.Fault

	mu   sync.Mutex
	hits map[string]int // deliveries faulted, by the event's body digest
}

// The proxy journals a rule's fault by its registered name; a rules file
// that names it gets the zero script, which passes every delivery.
func init() { faults.Register("webhook-event-attempts", func() faults.Fault { return new(script) }) }

// Inject applies the fault to the first n deliveries of each of the
// case's events, else passes.
func (s *script) Inject(ex *faults.Exchange) error {
	if s.fault == nil {
		return ex.Pass()
	}
	d := digest(ex.Body())
	s.mu.Lock()
	if s.hits == nil {
		s.hits = map[string]int{}
	}
	if _, known := s.hits[d]; !known && d != "" && !s.seen[d] && len(s.hits) < max(s.events, 1) {
		s.hits[d] = 0
	}
	h, ours := s.hits[d]
	hit := ours && (s.n <= 0 || h < s.n)
	if hit {
		s.hits[d]++
	}
	s.mu.Unlock()
	if !hit {
		return ex.Pass()
	}
	return s.fault.Inject(ex)
}

// digest is a body's digest as the journal records it
// (faults.Entry.BodySHA256): the hex of the first 16 bytes of its SHA-256.
func digest(body []byte) string {
	if len(body) == 0 {
		return ""
	}
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:16])
}
