package gateway_test

import (
	"cmp"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
	"github.com/resilcheck/resilcheck/internal/reference/gateway"
)

// TestGateway_Shed: beyond MaxConcurrent in-flight calls the gateway
// answers 503 with Retry-After: 1 and does not call the service.
func TestGateway_Shed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		defects    defect.Set
		retryAfter string
	}{
		{nil, "1"},
		{defect.Set{defect.NoRetryAfterHeader: true}, ""},
		{defect.Set{defect.BadRetryAfter: true}, "1.5s"},
	} {
		t.Run(cmp.Or(strings.Join(tc.defects.Names(), ","), "none"), func(t *testing.T) {
			t.Parallel()
			testShed(t, tc.defects, tc.retryAfter)
		})
	}
}

func testShed(t *testing.T, defects defect.Set, retryAfter string) {
	release := make(chan struct{})
	svc := newService(t, func(w http.ResponseWriter, r *http.Request) {
		<-release
		created(w, r)
	})
	unblock := sync.OnceFunc(func() { close(release) })
	t.Cleanup(unblock) // runs before the service closes, which waits for handlers
	gw := serve(t, newGateway(t, svc.URL, gateway.WithMaxConcurrent(1), gateway.WithDefects(defects)))
	first := make(chan int, 1)
	go func() {
		resp, err := http.Post(gw.URL+"/v1/payments", "application/json", strings.NewReader(`{}`))
		if err != nil {
			first <- 0
			return
		}
		resp.Body.Close()
		first <- resp.StatusCode
	}()
	select {
	case <-svc.calls:
	case <-time.After(waitFor):
		t.Fatal("the first request never reached the service")
	}
	resp, body := send(t, "POST", gw.URL+"/v1/payments", `{}`, nil)
	wantProblem(t, resp, body, http.StatusServiceUnavailable)
	if got, ok := resp.Header["Retry-After"]; retryAfter == "" && ok || retryAfter != "" && (len(got) != 1 || got[0] != retryAfter) {
		t.Fatalf("shed Retry-After %q, want %q", got, retryAfter)
	}
	unblock()
	if code := <-first; code != http.StatusCreated {
		t.Fatalf("in-flight request: %d, want 201", code)
	}
	if n := len(svc.requests()); n != 1 {
		t.Fatalf("service saw %d requests, want 1", n)
	}
	if resp, _ := send(t, "POST", gw.URL+"/v1/payments", `{}`, nil); resp.StatusCode != http.StatusCreated {
		t.Fatalf("after the slot freed: %d, want 201", resp.StatusCode)
	}
}
