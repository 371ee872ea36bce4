package processor

import (
	"maps"
	"net/http"
)

// Ledger is the body of GET /ledger: what the processor really charged.
type Ledger struct {
	Charges  int            `json:"charges"`  // distinct successful charges
	ByKey    map[string]int `json:"by_key"`   // charges created under each Idempotency-Key; > 1 never happens here
	Unkeyed  int            `json:"unkeyed"`  // charges created without a key: each retry of those charges again
	Declined int            `json:"declined"` // distinct declined attempts (amount 402)
}

// Ledger returns a snapshot of the ledger. Safe for concurrent use.
func (p *Processor) Ledger() Ledger {
	p.mu.Lock()
	defer p.mu.Unlock()
	return Ledger{Charges: p.charges, ByKey: maps.Clone(p.keyed), Unkeyed: p.unkeyed, Declined: p.decline}
}

// Reset empties the ledger and forgets every key. Safe for concurrent use.
func (p *Processor) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.byKey = map[string]*entry{}
	p.keyed = map[string]int{}
	p.charges, p.unkeyed, p.decline = 0, 0, 0
}

func (p *Processor) handleLedger(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, p.Ledger())
}

func (p *Processor) handleReset(w http.ResponseWriter, _ *http.Request) {
	p.Reset()
	writeJSON(w, http.StatusOK, map[string]string{"status": "reset"})
}
