package store

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// backend opens a fresh, empty store of one kind.
type backend struct {
	name string
	open func(t testing.TB) Store
}

var backends = []backend{
	{"sqlite", func(t testing.TB) Store {
		return mustOpen(t, "sqlite:"+filepath.Join(t.TempDir(), "store.db"))
	}},
	{"postgres", func(t testing.TB) Store {
		return mustOpen(t, pgtest.DSN(t))
	}},
}

// forEachBackend runs f as subtest "sqlite" and "postgres" of t.
func forEachBackend(t *testing.T, f func(t *testing.T, st Store)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { f(t, b.open(t)) })
	}
}

func mustOpen(t testing.TB, url string) Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := Open(ctx, url)
	if err != nil {
		t.Fatalf("Open(%q): %v", url, err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return st
}

// runID keeps tenants apart when several runs share one database
// ($RESILCHECK_PG_DSN); it names data and drives no test decision.
var (
	runID     = time.Now().UnixNano()
	tenantSeq atomic.Int64
)

// tenant returns a tenant name unique to this run.
func tenant(name string) string {
	return fmt.Sprintf("%s-%d-%d", name, runID, tenantSeq.Add(1))
}

// t0 is the fixed clock origin of the tests; stores are given now explicitly.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 123_456_000, time.UTC)

// newRecord is an unclaimed record leased for 10 s and kept for 24 h from at.
func newRecord(tn, key, owner, fp, pid string, at time.Time) Record {
	return Record{
		Tenant: tn, Key: key, Fingerprint: fp, PaymentID: pid, Owner: owner,
		LeaseUntil: at.Add(10 * time.Second), CreatedAt: at, ExpiresAt: at.Add(24 * time.Hour),
	}
}
