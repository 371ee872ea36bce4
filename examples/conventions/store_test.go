package main

import (
	"sync"
	"testing"
	"time"
)

// TestStore_claim: of concurrent copies exactly one drives the record; a
// released record keeps its id for the retry; a finished one replays; a
// different payload is a mismatch; an expired key is fresh again.
func TestStore_claim(t *testing.T) {
	st := newStore(time.Minute)
	s := scope{"acme", "k1"}
	now := time.Now()
	var wg sync.WaitGroup
	claims := make(chan claim, 50)
	for range 50 {
		wg.Go(func() {
			c, _ := st.claim(s, "fp", now)
			claims <- c
		})
	}
	wg.Wait()
	close(claims)
	count := map[claim]int{}
	for c := range claims {
		count[c]++
	}
	if count[claimNew] != 1 || count[claimInFlight] != 49 {
		t.Fatalf("50 concurrent claims: %v, want 1 new and 49 in flight", count)
	}
	_, first := st.claim(s, "other", now)
	st.finish(s, false, 0, nil)
	if c, again := st.claim(s, "fp", now); c != claimNew || again.id != first.id {
		t.Errorf("after a release: %v with id %s, want new with id %s", c, again.id, first.id)
	}
	st.finish(s, true, 201, []byte("done"))
	if c, r := st.claim(s, "fp", now); c != claimReplay || string(r.body) != "done" {
		t.Errorf("after finishing: %v %q, want a replay of done", c, r.body)
	}
	if c, _ := st.claim(s, "other", now); c != claimMismatch {
		t.Errorf("another payload: %v, want a mismatch", c)
	}
	if c, _ := st.claim(scope{"globex", "k1"}, "fp", now); c != claimNew {
		t.Errorf("the same key for another account: %v, want new", c)
	}
	if c, r := st.claim(s, "other", now.Add(2*time.Minute)); c != claimNew || r.id == first.id {
		t.Errorf("an expired key: %v with id %s, want new with a new id", c, r.id)
	}
}
