package deadlines

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
)

func TestDeadlineConfig_defaults(t *testing.T) {
	var zero Config
	if got := zero.timeoutStatus(); got != http.StatusGatewayTimeout {
		t.Errorf("timeoutStatus = %d, want 504", got)
	}
	if got := zero.tolerance(); got != 200*time.Millisecond {
		t.Errorf("tolerance = %s, want 200ms", got)
	}
	if lo, hi := zero.budgets(); lo != 300*time.Millisecond || hi != 700*time.Millisecond {
		t.Errorf("budgets = %s, %s, want 300ms, 700ms", lo, hi)
	}
	if got, _ := zero.watch(&check.Harness{}); got != 1200*time.Millisecond {
		t.Errorf("watch with no backoff declared = %s, want 1.2s", got)
	}
	declared := &check.Harness{Policy: check.Policy{Retry: check.RetryPolicy{Backoff: "exponential", Base: time.Second, Jitter: 0.1}}}
	if got, _ := zero.watch(declared); got != 1100*time.Millisecond+600*time.Millisecond {
		t.Errorf("watch with a declared 1 s ±10 %% backoff = %s, want 1.7s (first wait 1.1 s + 3 tolerances)", got)
	}
	tests := []struct {
		warmup, want int
	}{{0, 71}, {-1, 0}, {3, 3}}
	for _, tt := range tests {
		if got := (Config{Warmup: tt.warmup}).warmup(&check.Harness{}); got != tt.want {
			t.Errorf("Warmup %d: warmup() = %d, want %d", tt.warmup, got, tt.want)
		}
	}
	if lo, hi := (Config{MinBudget: time.Second, MaxBudget: time.Millisecond}).budgets(); hi <= lo {
		t.Errorf("inverted budgets give an empty range [%s, %s)", lo, hi)
	}
}

func TestDeadlineConfig_sendsFormat(t *testing.T) {
	tests := []struct {
		formats []string
		name    string
		want    bool
	}{
		{nil, "grpc-timeout", true},
		{[]string{"grpc-timeout"}, "Grpc-Timeout", true},
		{[]string{"X-Request-Timeout-Ms"}, "x-envoy-upstream-rq-timeout-ms", false},
	}
	for _, tt := range tests {
		if got := (Config{Formats: tt.formats}).sendsFormat(tt.name); got != tt.want {
			t.Errorf("Formats %v: sendsFormat(%q) = %v, want %v", tt.formats, tt.name, got, tt.want)
		}
	}
}

// TestDeadlines_catchAnIgnorantTarget proves the checks no reference defect
// reaches can fail: a target that ignores budgets and its caller, calls its
// dependency under its own 700 ms timeout with no deadline header, retries
// once and answers 502 when the dependency fails. Verdicts here only get
// more certain on a slow machine, so the test cannot flake under load.
func TestDeadlines_catchAnIgnorantTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a loopback stack for a few seconds")
	}
	h := dlIgnorantStack(t)
	checks := checks()
	res := check.Run(t.Context(), h, checks, nil)
	if len(res) != len(checks) {
		t.Fatalf("ran %d of %d checks", len(res), len(checks))
	}
	want := map[string]reports.Status{
		"HS-18": reports.StatusFail, "DL-03": reports.StatusFail, "DL-04": reports.StatusFail,
		"DL-04g": reports.StatusFail, "DL-04e": reports.StatusNotApplicable, "DL-06": reports.StatusFail,
		"DL-06b": reports.StatusFail, "DL-07": reports.StatusFail, "HS-18b": reports.StatusFail,
		"DL-03p": reports.StatusFail, // answers after the budget, whatever the draw
	}
	for _, r := range res {
		t.Logf("%s %s: %s%s", r.ID, r.Status, r.Observed, r.Reason)
		if r.Status != want[r.ID] {
			t.Errorf("%s: %s, want %s (observed %q, reason %q)", r.ID, r.Status, want[r.ID], r.Observed, r.Reason)
		}
	}
	// A check judged again after a stall runs the same Check value a
	// second time: the verdict must not change (DL-04 once rewrote the
	// format its closure captured, and its second run was not applicable).
	again := slices.DeleteFunc(slices.Clone(checks), func(c check.Check) bool { return !strings.HasPrefix(c.ID, "DL-04") })
	for _, r := range check.Run(t.Context(), h, again, nil) {
		if r.Status != want[r.ID] {
			t.Errorf("%s judged again: %s, want %s (observed %q, reason %q)", r.ID, r.Status, want[r.ID], r.Observed, r.Reason)
		}
	}
}

// dlIgnorantStack starts front proxy → ignorant target → dependency proxy (a
// stand-in answering 200) on loopback, with short deadline settings.
func dlIgnorantStack(t *testing.T) *check.Harness {
	t.Helper()
	j := faults.NewJournal()
	dep := dlStartProxy(t, "dependency", nil, j)
	target := httptest.NewServer(dlIgnorantHandler(dep.URL() + "/charges"))
	t.Cleanup(target.Close)
	u, err := url.Parse(target.URL)
	if err != nil {
		t.Fatal(err)
	}
	front := dlStartProxy(t, "front", u, j)
	return &check.Harness{
		TargetURL: front.URL(), Front: front, Dependency: dep, Journal: j, Seed: 7,
		Operation: check.Operation{Method: http.MethodPost, Path: "/v1/payments",
			Render: func(check.Values, bool) ([]byte, error) { return []byte(`{}`), nil }},
		Conventions: check.Conventions{MaxBudget: 300 * time.Millisecond},
		// It claims grpc-timeout too, so DL-04g judges (and fails) it.
		Policy: check.Policy{DeadlineHeaders: []string{"X-Request-Timeout-Ms", "grpc-timeout"}},
		Suites: []check.Suite{Suite(Config{
			MinBudget: 100 * time.Millisecond, MaxBudget: 150 * time.Millisecond,
			Tolerance: 100 * time.Millisecond, Watch: 400 * time.Millisecond, Warmup: 2,
			Formats: []string{"X-Request-Timeout-Ms", "grpc-timeout"},
		})},
	}
}

func dlStartProxy(t *testing.T, side string, upstream *url.URL, j *faults.Journal) *faults.Proxy {
	t.Helper()
	opts := []faults.Option{faults.WithSide(side), faults.WithSeed(1), faults.WithJournal(j)}
	if upstream != nil {
		opts = append(opts, faults.WithUpstream(upstream))
	}
	p, err := faults.NewProxy(opts...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = p.Shutdown(ctx)
	})
	return p
}

// dlIgnorantHandler is the target that breaks every deadline rule.
func dlIgnorantHandler(depURL string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
		defer cancel()
		var err error
		for range 2 {
			if err = dlCharge(ctx, depURL); err == nil || ctx.Err() != nil {
				break
			}
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.WriteHeader(http.StatusCreated)
	}
}

func dlCharge(ctx context.Context, u string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return errors.New(resp.Status)
	}
	return nil
}

// TestDlExpiredBudget_margin: a 504 to a spent budget that comes late is
// a timed failure, by how far past the tolerance, over the wait the
// runner measured, so a runner's summed lateness can void it.
func TestDlExpiredBudget_margin(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out a slow answer")
	}
	const hold, tol = 250 * time.Millisecond, 100 * time.Millisecond
	h := dlIgnorantStack(t)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(hold)
		w.WriteHeader(http.StatusGatewayTimeout)
	}))
	t.Cleanup(slow.Close)
	u, err := url.Parse(slow.URL)
	if err != nil {
		t.Fatal(err)
	}
	front := dlStartProxy(t, "front", u, h.Journal)
	h.TargetURL, h.Front = front.URL(), front
	h.Suites = []check.Suite{Suite(Config{Tolerance: tol, Warmup: -1})}
	res := dlExpiredBudget(t.Context(), h.NewCase(t.Context(), "DL-06b"))
	if res.Status != reports.StatusFail {
		t.Fatalf("%s (%s%s), want fail", res.Status, res.Observed, res.Reason)
	}
	// One-sided: a slower runner only widens both.
	if res.Margin < hold-tol || res.Margin == check.NotTimed {
		t.Errorf("Margin = %s, want at least %s (the hold past the tolerance)", res.Margin, hold-tol)
	}
	if w := res.Waited; w.From.IsZero() || w.To.Sub(w.From) < hold {
		t.Errorf("Waited = %+v, want the request's wait, at least %s", w, hold)
	}
}
