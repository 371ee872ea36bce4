package webhooks

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/check/checktest"
	"github.com/resilcheck/resilcheck/reports"
)

// receiver is a fake webhook receiver counting effects per event id. The
// zero value verifies as Standard Webhooks says and dedupes; each flag
// breaks it one way.
type receiver struct {
	key       []byte
	refuseAll bool // answers 400 to every delivery
	noVerify  bool // takes every delivery as genuine
	noDedupe  bool // counts every verified delivery

	mu      sync.Mutex
	effects map[string]int
}

func (f *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	id := r.Header.Get(HeaderID)
	sec, err := strconv.ParseInt(r.Header.Get(HeaderTimestamp), 10, 64)
	genuine := err == nil && time.Since(time.Unix(sec, 0)).Abs() <= 5*time.Minute &&
		r.Header.Get(HeaderSignature) == Sign(f.key, id, time.Unix(sec, 0), body)
	if f.refuseAll || !genuine && !f.noVerify {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	if f.effects[id] == 0 || f.noDedupe {
		f.effects[id]++
	}
	f.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

// judgeOn judges check id on a fresh stack in front of f.
func judgeOn(t *testing.T, f *receiver, id string) check.Result {
	t.Helper()
	f.key, f.effects = []byte("0123456789abcdef0123456789abcdef"), map[string]int{}
	var dep string
	h := checktest.Start(t, f, &dep).Harness()
	h.Policy.Webhooks = check.WebhookPolicy{Path: "/hooks", Scheme: SchemeStandard, Key: f.key,
		Probe: func(_ context.Context, v check.Values) (int, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			return f.effects[v.Key], nil
		}}
	h.Suites = []check.Suite{Suite(Config{})}
	for _, c := range checks() {
		if c.ID == id {
			return check.Judge(context.Background(), h, c)
		}
	}
	t.Fatalf("no check %s", id)
	return check.Result{}
}

// TestSuite_verdicts: each check passes on a correct receiver and fails on
// the one that breaks its rule; a receiver refusing everything leaves the
// refusal checks inconclusive, since nothing shows why it refused.
func TestSuite_verdicts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		f    func() *receiver
		want map[reports.Status][]string
	}{
		{"correct", func() *receiver { return &receiver{} },
			map[reports.Status][]string{reports.StatusPass: {"WH-01", "WH-02", "WH-03", "WH-04", "WH-05", "WH-06", "WH-06b", "WH-07"}}},
		{"no dedupe", func() *receiver { return &receiver{noDedupe: true} },
			map[reports.Status][]string{reports.StatusFail: {"WH-01", "WH-02", "WH-03"}, reports.StatusPass: {"WH-04", "WH-07"}}},
		{"no verification", func() *receiver { return &receiver{noVerify: true} },
			map[reports.Status][]string{reports.StatusFail: {"WH-04", "WH-05", "WH-06", "WH-06b"}, reports.StatusPass: {"WH-01", "WH-07"}}},
		{"refuses all", func() *receiver { return &receiver{refuseAll: true} },
			map[reports.Status][]string{reports.StatusInconclusive: {"WH-01", "WH-02", "WH-03", "WH-04", "WH-05", "WH-06", "WH-06b"}, reports.StatusFail: {"WH-07"}}},
	} {
		for status, ids := range tc.want {
			for _, id := range ids {
				if got := judgeOn(t, tc.f(), id); got.Status != status {
					t.Errorf("%s: %s = %s (%s%s); want %s", tc.name, id, got.Status, got.Observed, got.Reason, status)
				}
			}
		}
	}
}
