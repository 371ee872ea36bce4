package webhooksender

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"

	"github.com/resilcheck/resilcheck/faults"
)

// script is the endpoint's answer to one case's event: the first n
// deliveries of the event get fault, and every other delivery (another
// event's late retry, this event's later attempts) passes to the endpoint,
// which accepts it. The event is the first delivery whose body is not in
// seen; n <= 0 means every delivery of the event. Safe for concurrent use.
type script struct {
	seen  map[string]bool // read only
	n     int
	fault faults.Fault

	mu    sync.Mutex
	event string // the event's body digest, once its first delivery came
	hits  int
}

// The proxy journals a rule's fault by its registered name; a rules file
// that names it gets the zero script, which passes every delivery.
func init() { faults.Register("webhook-event-attempts", func() faults.Fault { return new(script) }) }

// Inject applies the fault to the event's first n deliveries, else passes.
func (s *script) Inject(ex *faults.Exchange) error {
	d := digest(ex.Body())
	s.mu.Lock()
	if s.event == "" && d != "" && !s.seen[d] {
		s.event = d
	}
	hit := s.fault != nil && d != "" && d == s.event && (s.n <= 0 || s.hits < s.n)
	if hit {
		s.hits++
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
