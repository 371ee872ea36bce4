package payments_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
	"github.com/resilcheck/resilcheck/internal/reference/payments"
	"github.com/resilcheck/resilcheck/internal/reference/processor"
)

func with(d defect.Name) payments.Option { return payments.WithDefects(defect.Set{d: true}) }

// Each test shows the contract holding without the defect (elsewhere or in
// the "correct" case) and breaking with it.

func TestDefect_NoIdempotency(t *testing.T) {
	st := openStore(t, "sqlite")
	proc, purl := startProcessor(t)
	svc := startService(t, st, purl, with(defect.NoIdempotency))
	a, b := pay(t, svc, "k", body1), pay(t, svc, "k", body1)
	if a.status != 201 || b.status != 201 || b.header.Get("Idempotent-Replayed") != "" || a.json(t)["id"] == b.json(t)["id"] {
		t.Fatalf("retry was deduplicated: %s / %s", a.body, b.body)
	}
	if l := proc.Ledger(); l.Charges != 2 {
		t.Errorf("ledger %+v, want the duplicate charge the defect causes", l)
	}
	if r := call(t, http.MethodGet, svc+"/v1/payments/"+b.json(t)["id"].(string), "", nil); r.status != 200 {
		t.Errorf("payments are still readable: %d", r.status)
	}
}

func TestDefect_RacyIdempotency(t *testing.T) {
	st := openStore(t, "sqlite")
	proc, purl := startProcessor(t, processor.WithLatency(100*time.Millisecond))
	svc := startService(t, st, purl, with(defect.RacyIdempotency))
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() { pay(t, svc, "race", body1) })
	}
	wg.Wait()
	if l := proc.Ledger(); l.Charges < 2 {
		t.Errorf("ledger %+v: concurrent copies did not race", l)
	}
	// Sequential retries are still deduplicated: only the race is broken.
	before := proc.Ledger().Charges
	if r := pay(t, svc, "race", body1); r.header.Get("Idempotent-Replayed") != "true" || proc.Ledger().Charges != before {
		t.Errorf("sequential retry: %d replayed=%q", r.status, r.header.Get("Idempotent-Replayed"))
	}
}

func TestDefect_ReplayMismatch(t *testing.T) {
	st := openStore(t, "sqlite")
	_, purl := startProcessor(t)
	svc := startService(t, st, purl, with(defect.ReplayMismatch))
	first := pay(t, svc, "k", body1)
	other := pay(t, svc, "k", `{"amount":99999,"currency":"EUR"}`)
	if other.status != http.StatusCreated || other.body != first.body {
		t.Errorf("other payload: %d %s; the defect replays %s", other.status, other.body, first.body)
	}
}

// loseFirstAnswer charges at the real processor, then loses the first answer
// (503), as a network would: the service's retry must not charge again.
func loseFirstAnswer(proc http.Handler) func(int, http.ResponseWriter, *http.Request) bool {
	return func(n int, w http.ResponseWriter, r *http.Request) bool {
		if n != 1 {
			return false
		}
		proc.ServeHTTP(httptest.NewRecorder(), r)
		http.Error(w, "lost", http.StatusServiceUnavailable)
		return true
	}
}

func TestDefect_NoDownstreamKey(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    []payments.Option
		charges int
	}{
		{"correct", nil, 1},
		{"defect", []payments.Option{with(defect.NoDownstreamKey)}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := openStore(t, "sqlite")
			proc, _ := startProcessor(t)
			_, rurl := startRecorder(t, proc, loseFirstAnswer(proc))
			svc := startService(t, st, rurl, tc.opts...)
			if r := pay(t, svc, "k", body1); r.status != http.StatusCreated {
				t.Fatalf("%d %s", r.status, r.body)
			}
			if l := proc.Ledger(); l.Charges != tc.charges {
				t.Errorf("ledger %+v, want %d charges", l, tc.charges)
			}
		})
	}
}

func TestDefect_CrossTenantKeys(t *testing.T) {
	st := openStore(t, "sqlite")
	_, purl := startProcessor(t)
	svc := startService(t, st, purl, with(defect.CrossTenantKeys))
	a := pay(t, svc, "shared", body1, "X-Tenant-ID", "a")
	b := pay(t, svc, "shared", body1, "X-Tenant-ID", "b")
	if b.body != a.body || b.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("tenant b got %s; the defect leaks tenant a's %s", b.body, a.body)
	}
	// The payment itself still belongs to tenant a.
	id := a.json(t)["id"].(string)
	if r := call(t, http.MethodGet, svc+"/v1/payments/"+id, "", map[string]string{"X-Tenant-ID": "a"}); r.status != 200 {
		t.Errorf("tenant a GET: %d", r.status)
	}
}

func TestDefect_RetryNonRetryable(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     []payments.Option
		attempts int
	}{
		{"correct", nil, 1},
		{"defect", []payments.Option{with(defect.RetryNonRetryable)}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := openStore(t, "sqlite")
			proc, _ := startProcessor(t)
			rec, rurl := startRecorder(t, proc, func(_ int, w http.ResponseWriter, _ *http.Request) bool {
				http.Error(w, "bad", http.StatusBadRequest)
				return true
			})
			svc := startService(t, st, rurl, tc.opts...)
			wantProblem(t, pay(t, svc, "k", body1), http.StatusBadGateway)
			if n := len(rec.wait(t, tc.attempts)) + len(rec.drain()); n != tc.attempts {
				t.Errorf("%d attempts for a 400, want %d", n, tc.attempts)
			}
		})
	}
}

// TestServer_TransportErrorsRetried: a connection dropped mid-request is
// retried up to the attempt cap, then answered 503 with Retry-After.
func TestServer_TransportErrorsRetried(t *testing.T) {
	st := openStore(t, "sqlite")
	proc, _ := startProcessor(t)
	rec, rurl := startRecorder(t, proc, func(_ int, w http.ResponseWriter, _ *http.Request) bool {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.(*net.TCPConn).SetLinger(0)
			conn.Close()
		}
		return true
	})
	svc := startService(t, st, rurl)
	r := pay(t, svc, "k", body1)
	wantProblem(t, r, http.StatusServiceUnavailable)
	if r.header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	if n := len(rec.wait(t, 3)) + len(rec.drain()); n != 3 {
		t.Errorf("%d attempts, want 3", n)
	}
}
