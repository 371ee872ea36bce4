package store

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// BenchmarkStore_ClaimComplete measures one idempotent request's store work:
// a first Claim of a new key, then Complete with its payment.
func BenchmarkStore_ClaimComplete(b *testing.B) {
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			st := be.open(b)
			benchClaimComplete(b, st, false)
		})
	}
}

// BenchmarkStore_ClaimCompleteParallel runs the same work from 64 goroutines
// (SetParallelism(32) on 2 CPUs; more on bigger machines).
func BenchmarkStore_ClaimCompleteParallel(b *testing.B) {
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			st := be.open(b)
			benchClaimComplete(b, st, true)
		})
	}
}

// BenchmarkSQLite_Pool compares SQLite pool sizes under 64 concurrent
// claim+complete loops; it chose sqliteMaxConns.
func BenchmarkSQLite_Pool(b *testing.B) {
	for _, conns := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("conns=%d", conns), func(b *testing.B) {
			st, err := openSQLiteConns(context.Background(), filepath.Join(b.TempDir(), "pool.db"), conns)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			benchClaimComplete(b, st, true)
		})
	}
}

func benchClaimComplete(b *testing.B, st Store, parallel bool) {
	ctx := context.Background()
	tn := tenant("bench")
	var seq atomic.Int64
	body := []byte(`{"id":"pay_x","amount":1000,"currency":"EUR","status":"succeeded","charge_id":"ch_x"}`)
	op := func() {
		n := seq.Add(1)
		key, id := fmt.Sprintf("k%d", n), fmt.Sprintf("pay_%d", n)
		rec := newRecord(tn, key, "o"+key, "fp", id, t0)
		if _, owned, err := st.Claim(ctx, rec, t0); err != nil || !owned {
			b.Fatalf("Claim = %v, %v", owned, err)
		}
		p := &Payment{ID: id, Tenant: tn, Key: key, Amount: 1000, Currency: "EUR", ChargeID: "ch_" + key, Status: "succeeded", CreatedAt: t0}
		if err := st.Complete(ctx, tn, key, rec.Owner, Succeeded, 201, body, p); err != nil {
			b.Fatalf("Complete: %v", err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	if !parallel {
		for b.Loop() {
			op()
		}
		return
	}
	b.SetParallelism(32)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			op()
		}
	})
}
