package launch

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/resilcheck/resilcheck/targets"
)

// grpcServer serves a grpc-go server on loopback, with the health service
// when hs is not nil, until the test ends; it returns the server's base URL.
func grpcServer(t *testing.T, hs *health.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	if hs != nil {
		healthpb.RegisterHealthServer(srv, hs)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return "http://" + ln.Addr().String()
}

// TestWaitHealthy_grpc: the gRPC health method is called over HTTP/2,
// whatever the port's protocol is said to be, on grpc-go's own health
// server: SERVING is healthy; NOT_SERVING, and a server without the health
// service (UNIMPLEMENTED), are unhealthy and say so.
func TestWaitHealthy_grpc(t *testing.T) {
	t.Parallel()
	serving := health.NewServer()
	notServing := health.NewServer()
	notServing.SetServingStatus("", healthpb.HealthCheckResponse_NOT_SERVING)
	for _, tc := range []struct {
		name string
		hs   *health.Server
		want string // "" = healthy, else in the error
	}{
		{"serving", serving, ""},
		{"not serving", notServing, "NOT_SERVING"},
		{"no health service", nil, `grpc-status "12"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url := grpcServer(t, tc.hs) + targets.GRPCHealthPath
			for _, port := range []targets.Protocol{"", targets.ProtocolH2C} {
				err := waitHealthy(t.Context(), url, 2*time.Second, nil, nil, port)
				switch {
				case tc.want == "" && err != nil:
					t.Errorf("port %q: %v; want healthy", port, err)
				case tc.want != "" && (!errors.Is(err, ErrUnhealthy) || !strings.Contains(err.Error(), tc.want)):
					t.Errorf("port %q: %v; want unhealthy, saying %s", port, err, tc.want)
				}
			}
		})
	}
}

// TestWaitHealthy_grpcBecomesServing: the wait polls until the server
// turns SERVING.
func TestWaitHealthy_grpcBecomesServing(t *testing.T) {
	t.Parallel()
	hs := health.NewServer()
	hs.SetServingStatus("", healthpb.HealthCheckResponse_NOT_SERVING)
	url := grpcServer(t, hs) + targets.GRPCHealthPath
	time.AfterFunc(100*time.Millisecond, func() { hs.SetServingStatus("", healthpb.HealthCheckResponse_SERVING) })
	if err := waitHealthy(t.Context(), url, 10*time.Second, nil, nil, targets.ProtocolH2C); err != nil {
		t.Errorf("waitHealthy: %v; want healthy once SERVING", err)
	}
}

func TestServingStatus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		body []byte
		want uint64
		err  bool
	}{
		{"SERVING", []byte{0, 0, 0, 0, 2, 0x08, 0x01}, 1, false},
		{"empty message: UNKNOWN", []byte{0, 0, 0, 0, 0}, 0, false},
		{"unknown field skipped", []byte{0, 0, 0, 0, 5, 0x12, 0x01, 'x', 0x08, 0x02}, 2, false},
		{"short", []byte{0, 0}, 0, true},
		{"compressed", []byte{1, 0, 0, 0, 0}, 0, true},
		{"length mismatch", []byte{0, 0, 0, 0, 9, 0x08, 0x01}, 0, true},
		{"truncated varint", []byte{0, 0, 0, 0, 2, 0x08, 0x80}, 0, true},
	} {
		got, err := servingStatus(tc.body)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("%s: servingStatus = %d, %v; want %d, error %v", tc.name, got, err, tc.want, tc.err)
		}
	}
}

func TestHealthPort(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		health string
		proto  targets.Protocol
		want   targets.Protocol
	}{
		{"/healthz", targets.ProtocolH2C, targets.ProtocolH2C},
		{"/healthz", "", ""},
		{"http://127.0.0.1:9/healthz", targets.ProtocolH2C, ""},
	} {
		if got := HealthPort(tc.health, tc.proto); got != tc.want {
			t.Errorf("HealthPort(%q, %q) = %q; want %q", tc.health, tc.proto, got, tc.want)
		}
	}
}
