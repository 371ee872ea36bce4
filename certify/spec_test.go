package certify

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/targets"
)

// renamedSpec is a spec whose every header is its own: journaled only when
// certify reads them from the spec.
const renamedSpec = `version: 1
kind: running
service: {url: %q, health: /healthz, startup_timeout: 2s, front: direct}
operations:
  - name: pay
    path: /v1/payments
    body: '{"amount": {{.Amount}}}'
    key_header: X-Idem-Key
    headers: {Authorization: "Bearer {{.Tenant}}"}
  - name: refund
    method: PUT
    path: /v1/refunds/{{.Key}}
    body: '{"amount": {{.Amount}}}'
    key_header: X-Refund-Key
dependencies: [{name: processor, listen: %q}]
effects: {ledger: {dependency: processor, key_header: X-Upstream-Key}}
tenancy: {header: X-Account, headers: {X-Api-Key: "key-{{.Tenant}}"}}
conventions: {deadline_header: grpc-timeout}
policy:
  retry: {max_attempts: 5, backoff: exponential, base: 1s, cap: 8s, jitter: 0.1, budget_ratio: 0.2, breaker_recovery: 30s}
  deadlines: {headers: [grpc-timeout, x-envoy-expected-rq-timeout-ms]}
  rate_limits: {operations: [refund], probe: /v1/limits, headers: legacy}
  idempotency: {key_required: false}
`

func TestJournalHeaders(t *testing.T) {
	t.Parallel()
	tg := parseSpec(t, fmt.Sprintf(renamedSpec, "http://127.0.0.1:1", "127.0.0.1:9"))
	got := journalHeaders(tg)
	for _, want := range []string{"X-Idem-Key", "X-Refund-Key", "X-Upstream-Key", "X-Account", "Grpc-Timeout",
		"X-Envoy-Expected-Rq-Timeout-Ms", "Authorization", "X-Api-Key", "Idempotency-Key", "X-Attempt"} {
		if !slices.Contains(got, want) {
			t.Errorf("journalHeaders lacks %s: %v", want, got)
		}
	}
	seen := map[string]bool{}
	for _, h := range got {
		if k := strings.ToLower(h); seen[k] {
			t.Errorf("journalHeaders lists %s twice: %v", h, got)
		} else {
			seen[k] = true
		}
	}
}

// TestPlaceTarget_journalsSpecHeaders sends requests in the spec's dialect
// through the proxies certify places: the journal must keep every renamed
// header on both sides.
func TestPlaceTarget_journalsSpecHeaders(t *testing.T) {
	t.Parallel()
	dep := freeListen(t)
	target := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/payments" {
			req, _ := http.NewRequestWithContext(r.Context(), http.MethodPost, "http://"+dep+"/charges", nil)
			req.Header.Set("X-Upstream-Key", r.Header.Get("X-Idem-Key"))
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}
	})
	tg := parseSpec(t, fmt.Sprintf(renamedSpec, target, dep))
	j := faults.NewJournal()
	env, err := placeTarget(context.Background(), tg, Config{}.kinds(), 1, j, slog.New(slog.DiscardHandler), io.Discard, &runTLS{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.close()
	req, _ := http.NewRequest(http.MethodPost, env.front.URL()+"/v1/payments", strings.NewReader("{}"))
	for k, v := range map[string]string{"X-Idem-Key": "k1", "X-Account": "acme", "Grpc-Timeout": "2S", "Authorization": "Bearer acme"} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	deadline := time.Now().Add(2 * time.Second)
	for len(j.After(0, faults.BySide("dependency"))) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	front, depCalls := j.After(0, faults.BySide("front")), j.After(0, faults.BySide("dependency"))
	if len(front) != 1 || len(depCalls) != 1 {
		t.Fatalf("journal: %d front, %d dependency entries; want 1 and 1", len(front), len(depCalls))
	}
	for k, v := range map[string]string{"X-Idem-Key": "k1", "X-Account": "acme", "Grpc-Timeout": "2S"} {
		if got := front[0].Header(k); got != v {
			t.Errorf("front entry %s = %q, want %q", k, got, v)
		}
	}
	// Credentials are journaled, but only as a fingerprint.
	if got := front[0].Header("Authorization"); !strings.HasPrefix(got, "Bearer redacted:") {
		t.Errorf("front entry Authorization = %q, want its scheme and a fingerprint", got)
	}
	if got := depCalls[0].Header("X-Upstream-Key"); got != "k1" {
		t.Errorf("dependency entry X-Upstream-Key = %q, want k1", got)
	}
}

// TestSpecPolicy maps every policy field: one left out fails here.
func TestSpecPolicy(t *testing.T) {
	t.Parallel()
	tg := parseSpec(t, fmt.Sprintf(renamedSpec, "http://127.0.0.1:1", "127.0.0.1:9"))
	p := specPolicy(tg)
	want := check.RetryPolicy{MaxAttempts: 5, Backoff: "exponential", Base: time.Second, Cap: 8 * time.Second,
		Jitter: 0.1, BudgetRatio: 0.2, BreakerRecovery: 30 * time.Second}
	if p.Retry != want {
		t.Errorf("Retry = %+v, want %+v", p.Retry, want)
	}
	if !slices.Equal(p.DeadlineHeaders, []string{"grpc-timeout", "x-envoy-expected-rq-timeout-ms"}) {
		t.Errorf("DeadlineHeaders = %v", p.DeadlineHeaders)
	}
	if p.RateLimitProbe != "/v1/limits" {
		t.Errorf("RateLimitProbe = %q", p.RateLimitProbe)
	}
	if p.RateLimitHeaders != "legacy" || !p.KeyOptional || !p.Direct {
		t.Errorf("RateLimitHeaders, KeyOptional, Direct = %q, %v, %v; want legacy, true, true", p.RateLimitHeaders, p.KeyOptional, p.Direct)
	}
	if hd := specConventions(tg).TenantHeaders("acme"); hd.Get("X-Api-Key") != "key-acme" {
		t.Errorf("TenantHeaders(acme) = %v, want X-Api-Key: key-acme", hd)
	}
	if len(p.RateLimited) != 1 {
		t.Fatalf("RateLimited = %d operations, want 1 (refund)", len(p.RateLimited))
	}
	r, err := p.RateLimited[0].Request(check.Values{Key: "k9", Amount: 3}, false)
	if err != nil || r.Method != http.MethodPut || r.Path != "/v1/refunds/k9" {
		t.Errorf("RateLimited[0] renders %s %s (%v), want PUT /v1/refunds/k9", r.Method, r.Path, err)
	}
}

func parseSpec(t *testing.T, spec string) *targets.Target {
	t.Helper()
	tg, err := targets.Parse("spec.yaml", []byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// TestHealthURL: a health path goes through the front proxy; an absolute
// health URL (a separate health port) is used as the spec gives it.
func TestHealthURL(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ health, want string }{
		{"", "http://127.0.0.1:1/healthz"},
		{"/livez", "http://127.0.0.1:1/livez"},
		{"http://127.0.0.1:9/ready", "http://127.0.0.1:9/ready"},
	} {
		if got := healthURL("http://127.0.0.1:1", tt.health); got != tt.want {
			t.Errorf("healthURL(%q) = %q, want %q", tt.health, got, tt.want)
		}
	}
}
