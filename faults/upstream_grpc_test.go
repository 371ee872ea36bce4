package faults

import (
	"net/http"
	"slices"
	"testing"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// TestEntry_UpstreamGRPC: the journal keeps the grpc-status each copy was
// answered with upstream, from trailers (an OK after its message) or the
// headers of a Trailers-Only answer (an error), also when the proxy lost
// the answer or duplicated the call, and from a gRPC stand-in; an HTTP
// answer leaves the list nil, and a fault that answers alone adds no copy.
func TestEntry_UpstreamGRPC(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		service string // the Check request's; "" is the server's own, SERVING
		rule    *Rule
		want    []int
	}{
		{"ok in trailers", "", nil, []int{0}},
		{"error trailers-only", "no.such.Service", nil, []int{5}}, // NOT_FOUND
		{"answer lost after the upstream committed it", "", &Rule{Name: "lose", Fault: DropResponse{}}, []int{0}},
		{"duplicated", "", &Rule{Name: "twice", Fault: Duplicate{Copies: 2}}, []int{0, 0}},
		{"refused by the proxy", "", &Rule{Name: "down", Fault: GRPCStatus{Code: 14}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var rules []Rule
			if tt.rule != nil {
				tt.rule.Match.Limit = 1
				rules = append(rules, *tt.rule)
			}
			p, c := grpcThrough(t, rules...)
			ctx := t.Context()
			_, _ = c.Check(ctx, &healthpb.HealthCheckRequest{Service: tt.service})
			e := await(t, p, 1)[0]
			if !slices.Equal(e.UpstreamGRPCStatuses, tt.want) {
				t.Errorf("UpstreamGRPCStatuses %v, want %v (upstream statuses %v)", e.UpstreamGRPCStatuses, tt.want, e.UpstreamStatuses)
			}
			for i, want := range tt.want {
				if code, ok := e.UpstreamGRPC(i); !ok || code != want {
					t.Errorf("UpstreamGRPC(%d) = %d, %v; want %d, true", i, code, ok, want)
				}
			}
		})
	}
	t.Run("stand-in", func(t *testing.T) {
		t.Parallel()
		p, c := standInClient(t, `{"status": "SERVING"}`, healthFrame(t))
		_, _ = c.Check(t.Context(), &healthpb.HealthCheckRequest{})
		if e := await(t, p, 1)[0]; !slices.Equal(e.UpstreamGRPCStatuses, []int{0}) {
			t.Errorf("stand-in: UpstreamGRPCStatuses %v, want [0]", e.UpstreamGRPCStatuses)
		}
	})
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) })
		p := startProxy(t, WithUpstream(up.url(t)))
		if _, _, err := do(t, client(), "GET", p.URL()+"/", ""); err != nil {
			t.Fatal(err)
		}
		if e := await(t, p, 1)[0]; e.UpstreamGRPCStatuses != nil {
			t.Errorf("HTTP answer: UpstreamGRPCStatuses %v, want nil", e.UpstreamGRPCStatuses)
		}
		if _, ok := (&Entry{UpstreamStatuses: []int{200}}).UpstreamGRPC(0); ok {
			t.Error("UpstreamGRPC(0) of an HTTP copy is known; want not")
		}
	})
}
