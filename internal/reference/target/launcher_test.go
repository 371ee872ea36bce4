package target

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/targets"
)

// TestLauncher_Launch starts the stack through its kind, as certify
// does, and proves the service calls its processor through the URL the
// PlaceDependency hook returned.
func TestLauncher_Launch(t *testing.T) {
	t.Parallel()
	tg, err := targets.Parse("", []byte("kind: reference\nreference: {defects: [no-jitter]}\n"), withKind)
	if err != nil {
		t.Fatal(err)
	}
	l, err := launch.Kinds{targets.KindReference: Kind()}.NewLauncher(tg)
	if err != nil {
		t.Fatal(err)
	}
	dl, ok := l.(launch.DependencyLauncher)
	if !ok || !slices.Equal(dl.Launched(), []string{Processor}) {
		t.Fatalf("launcher %T does not start the processor itself", l)
	}
	var placed []string
	var calls atomic.Int64
	env := launch.Env{Seed: 7, PlaceDependency: func(_ context.Context, name, upstream string) (string, error) {
		placed = append(placed, name)
		u, err := url.Parse(upstream)
		if err != nil {
			return "", err
		}
		rp := httputil.NewSingleHostReverseProxy(u)
		front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			rp.ServeHTTP(w, r)
		}))
		t.Cleanup(front.Close)
		return front.URL, nil
	}}
	r, err := l.Launch(t.Context(), env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Stop(context.Background()) })
	if !slices.Equal(placed, []string{Processor}) || r.URLs["gateway"] != r.URL || r.URLs["processor"] == "" ||
		!slices.Equal(r.Defects, []string{"no-jitter"}) {
		t.Errorf("Launch placed %v, returned %+v", placed, r)
	}
	req, _ := http.NewRequest(http.MethodPost, r.URL+"/v1/payments", strings.NewReader(`{"amount": 5, "currency": "EUR"}`))
	req.Header.Set("Idempotency-Key", "k-1")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || calls.Load() != 1 {
		t.Errorf("POST /v1/payments = %d with %d calls through the placed proxy; want 201 and 1", resp.StatusCode, calls.Load())
	}
	if err := r.Stop(t.Context()); err != nil {
		t.Errorf("Stop = %v", err)
	}
}
