package payments_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/internal/reference/payments"
	"github.com/resilcheck/resilcheck/internal/reference/processor"
	"github.com/resilcheck/resilcheck/internal/reference/store"
)

const body1 = `{"amount":1200,"currency":"EUR"}`

func TestServer_CreateAndReplay(t *testing.T) {
	forEachStore(t, func(t *testing.T, st store.Store) {
		proc, purl := startProcessor(t)
		svc := startService(t, st, purl)

		first := pay(t, svc, "order-1", body1, "X-Tenant-ID", "acme")
		if first.status != http.StatusCreated || first.header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("first: %d %s", first.status, first.body)
		}
		m := first.json(t)
		id, _ := m["id"].(string)
		if !strings.HasPrefix(id, "pay_") || m["amount"] != float64(1200) || m["currency"] != "EUR" ||
			m["status"] != "succeeded" || !strings.HasPrefix(m["charge_id"].(string), "ch_") {
			t.Errorf("body %s", first.body)
		}
		if loc := first.header.Get("Location"); loc != "/v1/payments/"+id {
			t.Errorf("Location %q", loc)
		}
		// Key order and whitespace do not change the fingerprint; the
		// sf-string form of the key names the same key.
		for _, b := range []string{body1, `{ "currency": "EUR", "amount": 1200 }`} {
			again := pay(t, svc, `"order-1"`, b, "X-Tenant-ID", "acme")
			if again.status != first.status || again.body != first.body || again.header.Get("Idempotent-Replayed") != "true" ||
				again.header.Get("Location") != first.header.Get("Location") {
				t.Errorf("replay: %d replayed=%q %s; want %d %s", again.status, again.header.Get("Idempotent-Replayed"), again.body, first.status, first.body)
			}
		}
		if l := proc.Ledger(); l.Charges != 1 || l.ByKey[id] != 1 || l.Unkeyed != 0 {
			t.Errorf("ledger %+v, want one charge keyed by the payment id", l)
		}

		got := call(t, http.MethodGet, svc+"/v1/payments/"+id, "", map[string]string{"X-Tenant-ID": "acme"})
		if got.status != http.StatusOK || got.body != first.body {
			t.Errorf("GET: %d %s, want %s", got.status, got.body, first.body)
		}
		wantProblem(t, call(t, http.MethodGet, svc+"/v1/payments/"+id, "", nil), http.StatusNotFound)
		wantProblem(t, call(t, http.MethodGet, svc+"/v1/payments/pay_nope", "", map[string]string{"X-Tenant-ID": "acme"}), http.StatusNotFound)
	})
}

func TestServer_KeyReusedWithOtherPayload(t *testing.T) {
	forEachStore(t, func(t *testing.T, st store.Store) {
		proc, purl := startProcessor(t)
		svc := startService(t, st, purl)
		if r := pay(t, svc, "k1", body1); r.status != http.StatusCreated {
			t.Fatalf("first: %d %s", r.status, r.body)
		}
		for range 2 { // an uncorrected retry fails the same way (IK-08)
			wantProblem(t, pay(t, svc, "k1", `{"amount":1300,"currency":"EUR"}`), http.StatusUnprocessableEntity)
		}
		if l := proc.Ledger(); l.Charges != 1 {
			t.Errorf("ledger %+v, want 1 charge", l)
		}
	})
}

func TestServer_Declined(t *testing.T) {
	forEachStore(t, func(t *testing.T, st store.Store) {
		proc, purl := startProcessor(t)
		svc := startService(t, st, purl)
		const b = `{"amount":402,"currency":"USD"}`
		first := pay(t, svc, "d1", b)
		wantProblem(t, first, http.StatusPaymentRequired)
		again := pay(t, svc, "d1", b)
		if again.status != http.StatusPaymentRequired || again.body != first.body || again.header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("replay of a decline: %d %s", again.status, again.body)
		}
		id := first.json(t)["payment_id"].(string)
		got := call(t, http.MethodGet, svc+"/v1/payments/"+id, "", nil)
		if got.status != http.StatusOK || got.json(t)["status"] != "declined" {
			t.Errorf("GET declined payment: %d %s", got.status, got.body)
		}
		if l := proc.Ledger(); l.Declined != 1 || l.Charges != 0 {
			t.Errorf("ledger %+v", l)
		}
	})
}

func TestServer_KeyRequired(t *testing.T) {
	st := openStore(t, "sqlite")
	proc, purl := startProcessor(t)
	svc := startService(t, st, purl)
	wantProblem(t, pay(t, svc, "", body1), http.StatusBadRequest)

	long := strings.Repeat("a", 256)
	for _, k := range []string{long, `"` + long + `"`, `""`, `"a"b"`, `"a\x"`, "a b", "a\tb", `a"b`, "é", "a;b", "'; DROP TABLE records; --", `"<script>"x`} {
		r := pay(t, svc, k, body1)
		if r.status != http.StatusBadRequest {
			t.Errorf("key %q: %d %s, want 400", k, r.status, r.body)
			continue
		}
		wantProblem(t, r, http.StatusBadRequest)
		if strings.Contains(r.body, k) {
			t.Errorf("key %q echoed in %s", k, r.body)
		}
	}
	// Two field lines are not one key (RFC 9651 §4.2).
	req, _ := http.NewRequest(http.MethodPost, svc+"/v1/payments", strings.NewReader(body1))
	req.Header.Add("Idempotency-Key", "a")
	req.Header.Add("Idempotency-Key", "b")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("two key lines: %d, want 400", res.StatusCode)
	}
	// Accepted forms, including SQL metacharacters inside a valid sf-string.
	for i, k := range []string{strings.Repeat("b", 255), `"with space and \"quote\""`, `"'; DROP TABLE records; --"`, "a.b_c:d~e-f"} {
		if r := pay(t, svc, k, fmt.Sprintf(`{"amount":%d,"currency":"EUR"}`, 10+i)); r.status != http.StatusCreated {
			t.Errorf("key %q: %d %s, want 201", k, r.status, r.body)
		}
	}
	if l := proc.Ledger(); l.Charges != 4 {
		t.Errorf("ledger %+v, want 4 charges (rejected keys charge nothing)", l)
	}
}

func TestServer_ValidationNotStored(t *testing.T) {
	forEachStore(t, func(t *testing.T, st store.Store) {
		proc, purl := startProcessor(t)
		svc := startService(t, st, purl)
		for _, b := range []string{``, `{}`, `{"amount":0,"currency":"EUR"}`, `{"amount":1.5,"currency":"EUR"}`, `{"amount":"1","currency":"EUR"}`,
			`{"amount":1,"currency":"eur"}`, `{"amount":1,"currency":"EURO"}`, `{"amount":1,"currency":"EUR","extra":1}`, `{"amount":1,"currency":"EUR"} {}`, `[1]`} {
			wantProblem(t, pay(t, svc, "v1", b), http.StatusBadRequest)
		}
		// Stripe SP-05: the corrected request with the same key executes.
		r := pay(t, svc, "v1", body1)
		if r.status != http.StatusCreated || r.header.Get("Idempotent-Replayed") != "" {
			t.Errorf("corrected request: %d replayed=%q %s", r.status, r.header.Get("Idempotent-Replayed"), r.body)
		}
		if l := proc.Ledger(); l.Charges != 1 {
			t.Errorf("ledger %+v", l)
		}
	})
}

func TestServer_TenantsAreSeparate(t *testing.T) {
	forEachStore(t, func(t *testing.T, st store.Store) {
		proc, purl := startProcessor(t)
		svc := startService(t, st, purl)
		a := pay(t, svc, "shared", body1, "X-Tenant-ID", "a")
		b := pay(t, svc, "shared", body1, "X-Tenant-ID", "b")
		if a.status != 201 || b.status != 201 || b.header.Get("Idempotent-Replayed") != "" || a.json(t)["id"] == b.json(t)["id"] {
			t.Errorf("tenant b got %d replayed=%q %s; tenant a had %s", b.status, b.header.Get("Idempotent-Replayed"), b.body, a.body)
		}
		if l := proc.Ledger(); l.Charges != 2 {
			t.Errorf("ledger %+v, want one charge per tenant", l)
		}
	})
}

// TestServer_Concurrent fires 50 copies of one request while the first is
// slow at the processor: exactly one charge, the rest 409 or a replay.
func TestServer_Concurrent(t *testing.T) {
	forEachStore(t, func(t *testing.T, st store.Store) {
		proc, purl := startProcessor(t, processor.WithLatency(100*time.Millisecond))
		svc := startService(t, st, purl)
		const n = 50
		res := make([]resp, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { res[i] = pay(t, svc, "conc", body1) })
		}
		wg.Wait()
		var created, conflicts, replays int
		var body string
		for _, r := range res {
			switch {
			case r.status == http.StatusCreated && r.header.Get("Idempotent-Replayed") == "true":
				replays++
				if body != "" && r.body != body {
					t.Errorf("replay body %s differs from %s", r.body, body)
				}
				body = r.body
			case r.status == http.StatusCreated:
				created++
			case r.status == http.StatusConflict:
				conflicts++
				if r.header.Get("Retry-After") != "1" {
					t.Errorf("409 Retry-After %q, want 1", r.header.Get("Retry-After"))
				}
				wantProblem(t, r, http.StatusConflict)
			default:
				t.Errorf("unexpected %d %s", r.status, r.body)
			}
		}
		t.Logf("50 copies: %d created, %d 409, %d replays", created, conflicts, replays)
		if created != 1 || conflicts == 0 {
			t.Errorf("created %d (want 1), conflicts %d (want > 0)", created, conflicts)
		}
		if l := proc.Ledger(); l.Charges != 1 || l.Unkeyed != 0 {
			t.Errorf("ledger %+v, want exactly one charge", l)
		}
	})
}

// TestServer_TakeoverAfterCrash plants the claim of an owner that crashed
// after the processor charged; the retry takes the record over with the same
// payment id and the processor's dedupe returns the existing charge.
func TestServer_TakeoverAfterCrash(t *testing.T) {
	forEachStore(t, func(t *testing.T, st store.Store) {
		proc, purl := startProcessor(t)
		svc := startService(t, st, purl)
		// Reproduce what the dead owner did: fingerprint from a live request.
		probe := pay(t, svc, "probe", body1)
		if probe.status != 201 {
			t.Fatal(probe.body)
		}
		rec, err := st.Lookup(context.Background(), "public", "probe")
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		dead := store.Record{Tenant: "public", Key: "crashed", Fingerprint: rec.Fingerprint, PaymentID: "pay_dead",
			State: store.InProgress, Owner: "own_dead", LeaseUntil: now.Add(-time.Second), CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
		if _, owned, err := st.Claim(context.Background(), dead, now); err != nil || !owned {
			t.Fatalf("plant claim: owned=%v err=%v", owned, err)
		}
		charged := call(t, http.MethodPost, purl+"/charges", `{"amount":1200,"currency":"EUR","reference":"pay_dead"}`,
			map[string]string{"Idempotency-Key": "pay_dead"})

		r := pay(t, svc, "crashed", body1)
		if r.status != http.StatusCreated || r.json(t)["id"] != "pay_dead" || !strings.Contains(charged.body, r.json(t)["charge_id"].(string)) {
			t.Fatalf("takeover: %d %s (processor had %s)", r.status, r.body, charged.body)
		}
		if l := proc.Ledger(); l.ByKey["pay_dead"] != 1 || l.Charges != 2 {
			t.Errorf("ledger %+v, want pay_dead charged once", l)
		}
		// A live lease is not taken over.
		live := dead
		live.Key, live.LeaseUntil = "live", time.Now().Add(time.Hour)
		if _, _, err := st.Claim(context.Background(), live, time.Now()); err != nil {
			t.Fatal(err)
		}
		wantProblem(t, pay(t, svc, "live", body1), http.StatusConflict)
	})
}

// TestServer_ReleaseThenRetry: an unknown outcome releases the claim and the
// retry re-drives the same payment id.
func TestServer_ReleaseThenRetry(t *testing.T) {
	forEachStore(t, func(t *testing.T, st store.Store) {
		proc, _ := startProcessor(t)
		var down atomic.Bool
		down.Store(true)
		_, rurl := startRecorder(t, proc, func(_ int, w http.ResponseWriter, _ *http.Request) bool {
			if down.Load() {
				w.Header().Set("Retry-After", "0")
				http.Error(w, "down", http.StatusServiceUnavailable)
				return true
			}
			return false
		})
		svc := startService(t, st, rurl)
		r := pay(t, svc, "rel", body1)
		wantProblem(t, r, http.StatusServiceUnavailable)
		if r.header.Get("Retry-After") == "" {
			t.Error("503 without Retry-After")
		}
		id := r.json(t)["payment_id"]
		down.Store(false)
		r = pay(t, svc, "rel", body1)
		if r.status != http.StatusCreated || r.json(t)["id"] != id {
			t.Fatalf("retry: %d %s, want 201 for %v", r.status, r.body, id)
		}
		if l := proc.Ledger(); l.Charges != 1 {
			t.Errorf("ledger %+v", l)
		}
	})
}

// TestServer_ReuseAfterTTL: a key reused with the same payload once its
// TTL has passed is a new payment under a new id, charged again at the
// processor (which never forgets a key), while the first payment stays
// in the ledger as it was. The derived payment id used to come out the
// same, so the processor replayed the old charge and the ledger row was
// overwritten.
func TestServer_ReuseAfterTTL(t *testing.T) {
	forEachStore(t, func(t *testing.T, st store.Store) {
		proc, purl := startProcessor(t)
		const ttl = 300 * time.Millisecond
		svc := startService(t, st, purl, payments.WithKeyTTL(ttl))
		first := pay(t, svc, "again", body1)
		if first.status != http.StatusCreated {
			t.Fatalf("first use: %d %s", first.status, first.body)
		}
		time.Sleep(ttl + 100*time.Millisecond) // one-sided: the TTL has passed
		second := pay(t, svc, "again", body1)
		id1, id2 := first.json(t)["id"], second.json(t)["id"]
		if second.status != http.StatusCreated || second.header.Get("Idempotent-Replayed") != "" || id2 == id1 {
			t.Fatalf("reuse after the TTL: %d replayed=%q id %v (first %v); want a new payment", second.status, second.header.Get("Idempotent-Replayed"), id2, id1)
		}
		if l := proc.Ledger(); l.Charges != 2 {
			t.Errorf("%d charges; want 2 (ledger %+v)", l.Charges, l)
		}
		again := call(t, http.MethodGet, svc+"/v1/payments/"+id1.(string), "", nil)
		if again.status != http.StatusOK || again.json(t)["charge_id"] != first.json(t)["charge_id"] {
			t.Errorf("the first payment after the reuse: %d %s; want it as it was (%s)", again.status, again.body, first.body)
		}
	})
}

// TestServer_ExpiredKeyIsNew: after the key's TTL a reuse is a new request
// (Stripe SP-03), not a replay.
func TestServer_ExpiredKeyIsNew(t *testing.T) {
	forEachStore(t, func(t *testing.T, st store.Store) {
		proc, purl := startProcessor(t)
		svc := startService(t, st, purl, payments.WithKeyTTL(time.Hour))
		old := time.Now().Add(-2 * time.Hour)
		if err := st.Put(context.Background(), store.Record{Tenant: "public", Key: "old", Fingerprint: "x", PaymentID: "pay_old",
			State: store.Succeeded, Status: 201, Body: []byte(`{"id":"pay_old"}`), CreatedAt: old, ExpiresAt: old.Add(time.Hour)}, nil); err != nil {
			t.Fatal(err)
		}
		r := pay(t, svc, "old", body1)
		if r.status != http.StatusCreated || r.header.Get("Idempotent-Replayed") != "" || r.json(t)["id"] == "pay_old" {
			t.Errorf("expired key: %d replayed=%q %s, want a new payment", r.status, r.header.Get("Idempotent-Replayed"), r.body)
		}
		if l := proc.Ledger(); l.Charges != 1 {
			t.Errorf("ledger %+v", l)
		}
	})
}
