package faults

import (
	"errors"
	"net/url"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/resilcheck/resilcheck/targets"
)

// healthFrame is the codec of a spec whose dependency call is
// grpc.health.v1's Check: it encodes a HealthCheckResponse written as JSON
// and frames it (targets.GRPCCodec.Frame).
func healthFrame(t *testing.T) func([]byte) ([]byte, error) {
	t.Helper()
	c, err := targets.GRPCDependency{Method: "/grpc.health.v1.Health/Check", Proto: "health.proto",
		Response: "grpc.health.v1.HealthCheckResponse"}.Compile("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return c.Frame
}

// standInClient starts a gRPC stand-in answering body and a grpc-go
// health client of it.
func standInClient(t *testing.T, body string, encode func([]byte) ([]byte, error), opts ...Option) (*Proxy, healthpb.HealthClient) {
	t.Helper()
	r := Respond{Headers: map[string]string{"X-Ledger": "stand-in"}, Body: body}
	p := startProxy(t, append([]Option{WithSide("dependency"), WithGRPCStandIn(r, encode)}, opts...)...)
	u, _ := url.Parse(p.URL())
	conn, err := grpc.NewClient("passthrough:///"+u.Host, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return p, healthpb.NewHealthClient(conn)
}

// TestWithGRPCStandIn: a grpc-go client of a gRPC stand-in gets the
// rendered message, the stand-in's headers as metadata and status OK; an
// answer that does not encode fails the call instead of passing for OK.
func TestWithGRPCStandIn(t *testing.T) {
	t.Parallel()
	t.Run("ok", func(t *testing.T) {
		t.Parallel()
		p, c := standInClient(t, `{"status": "{{if eq .Method "POST"}}SERVING{{else}}NOT_SERVING{{end}}"}`, healthFrame(t))
		var header, trailer metadata.MD
		resp, err := c.Check(t.Context(), &healthpb.HealthCheckRequest{}, grpc.Header(&header), grpc.Trailer(&trailer))
		if err != nil {
			t.Fatalf("Check: %v", err)
		}
		if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING || header.Get("x-ledger")[0] != "stand-in" {
			t.Errorf("answer %v with metadata %v; want SERVING and x-ledger: stand-in", resp, header)
		}
		e := await(t, p, 1)[0]
		if e.Status != 200 || e.ResponseHeaders["Grpc-Status"] != "0" || e.UpstreamCalls != 1 {
			t.Errorf("journal %+v; want 200, grpc-status 0 and one call to the stand-in", e)
		}
	})
	t.Run("empty message", func(t *testing.T) {
		t.Parallel()
		_, c := standInClient(t, "{}", healthFrame(t))
		resp, err := c.Check(t.Context(), &healthpb.HealthCheckRequest{})
		if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_UNKNOWN {
			t.Errorf("Check = %v, %v; want the empty message (UNKNOWN), OK", resp, err)
		}
	})
	t.Run("encode fails", func(t *testing.T) {
		t.Parallel()
		_, c := standInClient(t, "{}", func([]byte) ([]byte, error) { return nil, errors.New("no such message") })
		_, err := c.Check(t.Context(), &healthpb.HealthCheckRequest{})
		if status.Code(err) == codes.OK {
			t.Errorf("Check = %v; want a failed call", err)
		}
	})
}
