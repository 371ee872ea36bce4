package main

import (
	"fmt"
	"sync"
	"time"
)

// scope is what an idempotency record is stored under: the account and the
// key, so two accounts never share a record.
type scope struct{ account, key string }

// record is one idempotency key's state. A record whose outcome is unknown
// (the ledger never answered definitively) keeps its id, so the client's
// retry forwards the same X-Upstream-Key and the ledger cannot count it twice.
type record struct {
	id          string // the ledger entry's id, forwarded as X-Upstream-Key
	fingerprint string // method, path and body of the first request
	created     time.Time
	inFlight    bool
	done        bool // status and body are the stored answer
	status      int
	body        []byte
}

// claim is what the store says about an incoming request.
type claim int

const (
	claimNew      claim = iota // the caller owns the record and must drive it
	claimReplay                // the stored answer is to be replayed
	claimInFlight              // another copy is driving it: 409
	claimMismatch              // the key was used with another payload: 400
)

// store keeps idempotency records and effect counts in memory; it is safe
// for concurrent use: one mutex orders every claim, so of concurrent copies
// exactly one is claimNew.
type store struct {
	mu      sync.Mutex
	ttl     time.Duration
	records map[scope]*record
	effects map[scope]int // ledger entries made per (account, key), for the probe
	seq     int
}

func newStore(ttl time.Duration) *store {
	return &store{ttl: ttl, records: map[scope]*record{}, effects: map[scope]int{}}
}

// claim looks s up for a request with fingerprint fp. For claimNew it
// returns a snapshot of the record to drive; for claimReplay the stored one.
func (st *store) claim(s scope, fp string, now time.Time) (claim, record) {
	st.mu.Lock()
	defer st.mu.Unlock()
	r, ok := st.records[s]
	if ok && now.Sub(r.created) > st.ttl {
		delete(st.records, s) // expired: the key is fresh again
		ok = false
	}
	switch {
	case !ok:
		st.seq++
		r = &record{id: fmt.Sprintf("le_%d_%d", now.UnixNano(), st.seq), fingerprint: fp, created: now}
		st.records[s] = r
	case r.fingerprint != fp:
		return claimMismatch, *r
	case r.inFlight:
		return claimInFlight, *r
	case r.done:
		return claimReplay, *r
	}
	r.inFlight = true
	return claimNew, *r
}

// finish stores the answer of a claimed record; done false releases it with
// its id kept, for a retry to drive again.
func (st *store) finish(s scope, done bool, status int, body []byte) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if r, ok := st.records[s]; ok {
		r.inFlight, r.done, r.status, r.body = false, done, status, body
	}
}

// fresh returns an id for an effect made without a record (a break).
func (st *store) fresh(now time.Time) string {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.seq++
	return fmt.Sprintf("le_%d_%d", now.UnixNano(), st.seq)
}

// counted adds one ledger entry made for s.
func (st *store) counted(s scope) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.effects[s]++
}

// count returns the ledger entries made for s.
func (st *store) count(s scope) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.effects[s]
}
