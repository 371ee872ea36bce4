package store

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// claimRace has n goroutines claim one (tenant, key), spread over the given
// handles, and checks that exactly one owns it and all others see that owner.
func claimRace(t *testing.T, handles []Store, n int) {
	t.Helper()
	ctx := context.Background()
	tn := tenant("race")
	type result struct {
		rec   Record
		owned bool
		err   error
	}
	results := make([]result, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			rec := newRecord(tn, "k", fmt.Sprintf("o%d", i), "fp", fmt.Sprintf("pay_%d", i), t0)
			r, owned, err := handles[i%len(handles)].Claim(ctx, rec, t0)
			results[i] = result{r, owned, err}
		})
	}
	close(start)
	wg.Wait()
	owners := 0
	var owner string
	for i, r := range results {
		if r.err != nil {
			t.Fatalf("claim %d: %v", i, r.err)
		}
		if r.owned {
			owners++
			owner = r.rec.Owner
		}
	}
	if owners != 1 {
		t.Fatalf("%d owners, want exactly 1", owners)
	}
	for i, r := range results {
		if r.rec.Owner != owner || r.rec.PaymentID != "pay_"+owner[1:] {
			t.Fatalf("claim %d saw %+v; want owner %s", i, r.rec, owner)
		}
	}
}

func TestStore_ClaimConcurrent(t *testing.T) {
	forEachBackend(t, func(t *testing.T, st Store) {
		claimRace(t, []Store{st}, 50)
	})
	// Two handles on one file use separate connections and contend through
	// SQLite's file locks, as two processes do.
	t.Run("sqlite/two-handles", func(t *testing.T) {
		path := "sqlite:" + filepath.Join(t.TempDir(), "shared.db")
		claimRace(t, []Store{mustOpen(t, path), mustOpen(t, path)}, 50)
	})
}

// TestStore_CompleteConcurrent has one owner complete while many retries
// claim: every claim sees in progress or the final record, never owns it.
func TestStore_CompleteConcurrent(t *testing.T) {
	forEachBackend(t, func(t *testing.T, st Store) {
		ctx := context.Background()
		tn := tenant("race")
		st.Claim(ctx, newRecord(tn, "k", "o0", "fp", "pay_0", t0), t0)
		var wg sync.WaitGroup
		errs := make(chan error, 21)
		wg.Go(func() {
			errs <- st.Complete(ctx, tn, "k", "o0", Succeeded, 201, []byte("done"), nil)
		})
		for i := 1; i <= 20; i++ {
			wg.Go(func() {
				at := t0.Add(time.Second) // lease still live
				r, owned, err := st.Claim(ctx, newRecord(tn, "k", fmt.Sprintf("o%d", i), "fp", "x", at), at)
				switch {
				case err != nil:
					errs <- err
				case owned || r.Owner != "o0" || (r.State != InProgress && r.State != Succeeded):
					errs <- fmt.Errorf("claim %d: %+v owned=%v", i, r, owned)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
	})
}
