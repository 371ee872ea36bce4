package gateway_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/headers"
	"github.com/resilcheck/resilcheck/internal/reference/gateway"
)

// waitFor is the generous bound for an event the test expects; it only
// limits how long a broken build hangs.
const waitFor = 10 * time.Second

func TestGateway_DeadlineForwarded(t *testing.T) {
	t.Parallel()
	svc := newService(t, created)
	gw := serve(t, newGateway(t, svc.URL, gateway.WithMaxBudget(8*time.Second)))
	for _, tc := range []struct {
		name, value string
		max         int64 // forwarded ms must be below this
	}{
		{headers.RequestTimeoutMs, "5000", 5000},
		{headers.GRPCTimeout, "3S", 3000},
		{headers.GRPCTimeout, "2500m", 2500},
		{headers.RequestTimeoutMs, "60000", 8000}, // capped at WithMaxBudget
		{"", "", 8000}, // none: WithMaxBudget applies
	} {
		hdr := map[string]string{}
		if tc.name != "" {
			hdr[tc.name] = tc.value
		}
		resp, _ := send(t, "POST", gw.URL+"/v1/payments", `{}`, hdr)
		reqs := svc.requests()
		got := reqs[len(reqs)-1].Header
		ms := got.Get(headers.RequestTimeoutMs)
		if resp.StatusCode != 201 || !digitsRE.MatchString(ms) || atoi(ms) <= 0 || atoi(ms) >= tc.max {
			t.Errorf("%s: %s: status %d, forwarded %s=%q; want 0 < ms < %d", tc.name, tc.value, resp.StatusCode, headers.RequestTimeoutMs, ms, tc.max)
		}
		if got.Get(headers.GRPCTimeout) != "" {
			t.Errorf("%s: grpc-timeout forwarded as well", tc.name)
		}
	}
}

// TestGateway_ExpiredBudget: a spent budget is refused at once with 504
// and never reaches the service.
func TestGateway_ExpiredBudget(t *testing.T) {
	t.Parallel()
	svc := newService(t, created)
	gw := serve(t, newGateway(t, svc.URL))
	for _, hdr := range []map[string]string{{headers.RequestTimeoutMs: "0"}, {headers.GRPCTimeout: "0m"}} {
		resp, body := send(t, "POST", gw.URL+"/v1/payments", `{}`, hdr)
		wantProblem(t, resp, body, http.StatusGatewayTimeout)
	}
	if n := len(svc.requests()); n != 0 {
		t.Fatalf("service saw %d requests, want 0", n)
	}
}

// hanging is a service that never answers; it reports when the gateway
// cancels its request.
func hanging(t *testing.T) (*service, chan struct{}) {
	cancelled := make(chan struct{}, 8)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	svc := newService(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
			cancelled <- struct{}{}
		case <-release:
		}
	})
	return svc, cancelled
}

func TestGateway_DeadlineExceeded(t *testing.T) {
	t.Parallel()
	svc, cancelled := hanging(t)
	gw := serve(t, newGateway(t, svc.URL))
	start := time.Now()
	resp, body := send(t, "POST", gw.URL+"/v1/payments", `{}`, map[string]string{headers.RequestTimeoutMs: "150"})
	if elapsed := time.Since(start); elapsed < 140*time.Millisecond {
		t.Errorf("504 after %s, before the 150 ms budget", elapsed)
	}
	wantProblem(t, resp, body, http.StatusGatewayTimeout)
	select {
	case <-cancelled:
	case <-time.After(waitFor):
		t.Fatal("the service's request was not cancelled at the deadline")
	}
	if n := len(svc.requests()); n != 1 {
		t.Fatalf("service saw %d requests, want 1", n)
	}
}

// TestGateway_ClientDisconnect: a caller that goes away cancels the
// service call (DL-07).
func TestGateway_ClientDisconnect(t *testing.T) {
	t.Parallel()
	svc, cancelled := hanging(t)
	gw := serve(t, newGateway(t, svc.URL))
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", gw.URL+"/v1/payments/pay_1", nil)
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	select {
	case <-svc.calls:
	case <-time.After(waitFor):
		t.Fatal("the request never reached the service")
	}
	cancel()
	select {
	case <-cancelled:
	case <-time.After(waitFor):
		t.Fatal("the service's request was not cancelled after the caller left")
	}
	if err := <-errc; err == nil {
		t.Fatal("the cancelled caller got a response")
	}
}
