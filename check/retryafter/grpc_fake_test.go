package retryafter

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
)

// grpcRetryPolicy retries Health/Check on UNAVAILABLE, as a gRPC client's
// service config does; grpc-go honours pushback (stream.go shouldRetry).
const grpcRetryPolicy = `{"methodConfig":[{"name":[{"service":"grpc.health.v1.Health"}],"retryPolicy":{
	"maxAttempts":3,"initialBackoff":"0.01s","maxBackoff":"0.01s","backoffMultiplier":1,"retryableStatusCodes":["UNAVAILABLE"]}}]}`

// grpcThrottledPolicy is grpcRetryPolicy under a retry throttle of 3
// tokens: a failure takes one, a success gives 0.1 back, and a failure
// that leaves 1.5 or less is not retried. From full, a call is retried
// once; after one failure, not at all.
var grpcThrottledPolicy = `{"retryThrottling":{"maxTokens":3,"tokenRatio":0.1},` + grpcRetryPolicy[1:]

// grpcFake is a service whose dependency is gRPC, called with grpc-go:
// retried by grpc-go's policy (under a throttle: throttled), by a loop of
// its own that ignores pushback (ownLoop, with a fresh key per attempt:
// freshKeys), or not at all (once).
type grpcFake struct {
	conn                                *grpc.ClientConn
	ownLoop, freshKeys, once, throttled bool
}

func (f *grpcFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	attempts := 1
	if f.ownLoop {
		attempts = 3
	}
	for i := range attempts {
		key := r.Header.Get("Idempotency-Key")
		if f.freshKeys {
			key = fmt.Sprintf("%s-%d", key, i)
		}
		ctx := metadata.AppendToOutgoingContext(r.Context(), "idempotency-key", key)
		if _, err := healthpb.NewHealthClient(f.conn).Check(ctx, &healthpb.HealthCheckRequest{}); err == nil {
			w.WriteHeader(http.StatusCreated)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	w.WriteHeader(http.StatusServiceUnavailable)
}

// grpcFakeHarness starts front proxy → f → gRPC stand-in dependency (an
// empty Health answer, grpc-status 0) on loopback, f's client dialled with
// the retry policy unless it retries itself or not at all.
func grpcFakeHarness(t *testing.T, f *grpcFake, cfg Config) *check.Harness {
	t.Helper()
	j := faults.NewJournal()
	emptyMessage := func([]byte) ([]byte, error) { return []byte{0, 0, 0, 0, 0}, nil }
	dep := startProxy(t, faults.WithSide("dependency"), faults.WithJournal(j), faults.WithGRPCStandIn(faults.Respond{}, emptyMessage))
	opts := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	switch {
	case f.ownLoop || f.once:
		opts = append(opts, grpc.WithDisableRetry())
	case f.throttled:
		opts = append(opts, grpc.WithDefaultServiceConfig(grpcThrottledPolicy))
	default:
		opts = append(opts, grpc.WithDefaultServiceConfig(grpcRetryPolicy))
	}
	u, _ := url.Parse(dep.URL())
	conn, err := grpc.NewClient("passthrough:///"+u.Host, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	f.conn = conn
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: f, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	front := startProxy(t, faults.WithUpstream(&url.URL{Scheme: "http", Host: l.Addr().String()}), faults.WithJournal(j))
	return &check.Harness{
		TargetURL: front.URL(), Front: front, Dependency: dep, Journal: j, Seed: 1, DependencyGRPC: true,
		Operation: check.Operation{Method: http.MethodPost, Path: "/v1/payments", EffectMethod: http.MethodPost,
			EffectPath: "/grpc.health.v1.Health/Check", Render: func(check.Values, bool) ([]byte, error) { return []byte("{}"), nil }},
		Suites: []check.Suite{Suite(cfg)},
		Policy: check.Policy{Retry: check.RetryPolicy{MaxAttempts: 3}},
	}
}

func startProxy(t *testing.T, opts ...faults.Option) *faults.Proxy {
	t.Helper()
	p, err := faults.NewProxy(append([]faults.Option{faults.WithSeed(1)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// TestRetryAfter_judgesGRPCDependency: against a gRPC dependency the suite
// sends grpc-status and grpc-retry-pushback-ms. grpc-go waits out a
// pushback (HS-08) and stops at a negative one (HS-09g), under a retry
// throttle too; a loop of the service's own that ignores pushback fails
// both, HS-09g whatever keys it sends, and HS-10 tells of the pushback it
// ignored; a service that never retries leaves HS-09g nothing to judge;
// the HTTP-only checks do not apply.
func TestRetryAfter_judgesGRPCDependency(t *testing.T) {
	tests := []struct {
		name string
		fake grpcFake
		want map[string]reports.Status
	}{
		{"grpc-go's retry policy", grpcFake{}, map[string]reports.Status{
			"HS-08": reports.StatusPass, "HS-09g": reports.StatusPass,
			"HS-09": reports.StatusNotApplicable, "HS-03": reports.StatusNotApplicable, "RL-10": reports.StatusNotApplicable}},
		{"a loop that ignores pushback", grpcFake{ownLoop: true}, map[string]reports.Status{
			"HS-08": reports.StatusFail, "HS-09g": reports.StatusFail, "HS-10": reports.StatusPass}},
		{"a loop that ignores pushback, a fresh key per attempt", grpcFake{ownLoop: true, freshKeys: true}, map[string]reports.Status{
			"HS-09g": reports.StatusFail}},
		// HS-09g alone: HS-08's failures would drain the throttle first.
		{"grpc-go's retry policy under a throttle", grpcFake{throttled: true}, map[string]reports.Status{"HS-09g": reports.StatusPass}},
		{"no retries", grpcFake{once: true}, map[string]reports.Status{"HS-09g": reports.StatusNotApplicable}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := tt.fake
			h := grpcFakeHarness(t, &f, Config{Budget: 3 * time.Second, BreakerFlush: 1})
			for id, want := range tt.want {
				res := check.Judge(t.Context(), h, raCheckByID(t, id))
				switch {
				case res.Status != want:
					t.Errorf("%s: status %s, want %s; observed %q, reason %q", id, res.Status, want, res.Observed, res.Reason)
				case strings.Contains(res.Expected+res.Observed, "Retry-After"):
					t.Errorf("%s: a gRPC dependency's verdict speaks of Retry-After: expected %q, observed %q", id, res.Expected, res.Observed)
				default:
					t.Logf("%s %s: %s%s", id, res.Status, res.Observed, res.Reason)
				}
			}
		})
	}
}
