package processor_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/resilcheck/resilcheck/internal/reference/processor"
)

func newServer(t *testing.T, opts ...processor.Option) (*processor.Processor, string) {
	t.Helper()
	p, err := processor.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return p, srv.URL
}

func charge(t *testing.T, url, key, body string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/charges", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func TestProcessor_Charge(t *testing.T) {
	p, url := newServer(t, processor.WithSeed(7))
	const body = `{"amount":1200,"currency":"EUR","reference":"pay_1"}`

	st, h, first := charge(t, url, "pay_1", body)
	if st != http.StatusCreated || h.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first charge: %d %v %s", st, h, first)
	}
	var ch processor.Charge
	if err := json.Unmarshal([]byte(first), &ch); err != nil || !strings.HasPrefix(ch.ID, "ch_") || ch.Status != "succeeded" || ch.Amount != 1200 {
		t.Fatalf("charge body %s: %v", first, err)
	}
	st, h, again := charge(t, url, "pay_1", body)
	if st != http.StatusCreated || again != first || h.Get("Idempotent-Replayed") != "true" {
		t.Errorf("same key: %d replayed=%q body %s, want the first answer replayed", st, h.Get("Idempotent-Replayed"), again)
	}
	if st, _, b := charge(t, url, "pay_1", `{"amount":1300,"currency":"EUR","reference":"pay_1"}`); st != http.StatusUnprocessableEntity || !strings.Contains(b, `"type"`) {
		t.Errorf("same key, other payload: %d %s, want 422 problem", st, b)
	}
	for range 2 {
		if st, _, _ := charge(t, url, "", body); st != http.StatusCreated {
			t.Errorf("unkeyed: %d", st)
		}
	}
	if st, h, b := charge(t, url, "pay_2", `{"amount":402,"currency":"EUR"}`); st != http.StatusPaymentRequired || h.Get("Content-Type") != "application/problem+json" || !strings.Contains(b, "declined") {
		t.Errorf("declined: %d %s", st, b)
	}
	for _, bad := range []string{`{}`, `{"amount":-1,"currency":"EUR"}`, `{"amount":1,"currency":"eur"}`, `{"amount":1,"currency":"EUR","x":1}`, `nope`} {
		if st, _, _ := charge(t, url, "bad", bad); st != http.StatusBadRequest {
			t.Errorf("body %s: %d, want 400", bad, st)
		}
	}

	resp, err := http.Get(url + "/ledger")
	if err != nil {
		t.Fatal(err)
	}
	var l processor.Ledger
	err = json.NewDecoder(resp.Body).Decode(&l)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if l.Charges != 3 || l.ByKey["pay_1"] != 1 || len(l.ByKey) != 1 || l.Unkeyed != 2 || l.Declined != 1 {
		t.Errorf("ledger %+v, want 3 charges: pay_1 once, 2 unkeyed, 1 declined", l)
	}

	resp, err = http.Post(url+"/ledger/reset", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if l := p.Ledger(); l.Charges != 0 || len(l.ByKey) != 0 {
		t.Errorf("after reset: %+v", l)
	}
	if st, h, _ := charge(t, url, "pay_1", body); st != http.StatusCreated || h.Get("Idempotent-Replayed") != "" {
		t.Errorf("after reset the key is new: %d replayed=%q", st, h.Get("Idempotent-Replayed"))
	}
}

func TestProcessor_SeedDeterminesIDs(t *testing.T) {
	ids := func() string {
		_, url := newServer(t, processor.WithSeed(42))
		_, _, b := charge(t, url, "k", `{"amount":1,"currency":"USD"}`)
		return b
	}
	if a, b := ids(), ids(); a != b {
		t.Errorf("same seed gave %s and %s", a, b)
	}
}

func TestProcessor_ConcurrentSameKey(t *testing.T) {
	p, url := newServer(t)
	var wg sync.WaitGroup
	bodies := make([]string, 30)
	for i := range bodies {
		wg.Go(func() { _, _, bodies[i] = charge(t, url, "same", `{"amount":5,"currency":"USD"}`) })
	}
	wg.Wait()
	for _, b := range bodies {
		if b != bodies[0] {
			t.Fatalf("bodies differ: %s vs %s", b, bodies[0])
		}
	}
	if l := p.Ledger(); l.Charges != 1 || l.ByKey["same"] != 1 {
		t.Errorf("ledger %+v, want one charge", l)
	}
}

func TestProcessor_Healthz(t *testing.T) {
	_, url := newServer(t)
	resp, err := http.Get(url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != `{"status":"ok"}` {
		t.Errorf("healthz: %d %s", resp.StatusCode, b)
	}
}

func TestNew_NegativeLatency(t *testing.T) {
	if _, err := processor.New(processor.WithLatency(-1)); err == nil {
		t.Error("want an error for a negative latency")
	}
}
