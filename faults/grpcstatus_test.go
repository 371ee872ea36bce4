package faults

import (
	"context"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// grpcRetry retries Health/Check on UNAVAILABLE and RESOURCE_EXHAUSTED,
// with a backoff far below the pushbacks the tests send.
const grpcRetry = `{"methodConfig":[{"name":[{"service":"grpc.health.v1.Health"}],"retryPolicy":{
	"maxAttempts":3,"initialBackoff":"0.001s","maxBackoff":"0.001s","backoffMultiplier":1,
	"retryableStatusCodes":["UNAVAILABLE","RESOURCE_EXHAUSTED"]}}]}`

// grpcThrough starts a grpc-go health server over h2c, a proxy before it
// speaking h2c both ways with rules, and a grpc-go client of the proxy
// with grpcRetry.
func grpcThrough(t *testing.T, rules ...Rule) (*Proxy, healthpb.HealthClient) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	healthpb.RegisterHealthServer(srv, health.NewServer())
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	p := startProxy(t, WithUpstream(&url.URL{Scheme: "http", Host: ln.Addr().String()}), WithUpstreamHTTP2(), WithRules(rules...))
	u, _ := url.Parse(p.URL())
	conn, err := grpc.NewClient("passthrough:///"+u.Host, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultServiceConfig(grpcRetry))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return p, healthpb.NewHealthClient(conn)
}

func check(t *testing.T, c healthpb.HealthClient) (metadata.MD, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var trailer metadata.MD
	_, err := c.Check(ctx, &healthpb.HealthCheckRequest{}, grpc.Trailer(&trailer))
	return trailer, err
}

// TestGRPCStatus_Inject: a real grpc-go client through the proxy to a
// grpc-go server: a call passes (its status travels in trailers), the
// fault's UNAVAILABLE reaches the client with its message, a pushback
// holds the retry back at least that long, and a negative one stops it.
func TestGRPCStatus_Inject(t *testing.T) {
	t.Parallel()
	t.Run("pass", func(t *testing.T) {
		t.Parallel()
		p, c := grpcThrough(t)
		if _, err := check(t, c); err != nil {
			t.Fatalf("Check through the proxy: %v", err)
		}
		if e := await(t, p, 1)[0]; e.Proto != "HTTP/2.0" || e.Path != "/grpc.health.v1.Health/Check" || e.UpstreamCalls != 1 || e.ResponseHeaders["Grpc-Status"] != "0" {
			t.Errorf("journal %+v, want the call as an HTTP/2.0 exchange with the relayed trailer grpc-status 0", e)
		}
	})
	t.Run("unavailable", func(t *testing.T) {
		t.Parallel()
		p, c := grpcThrough(t, Rule{Name: "down", Match: Match{Limit: 3}, Fault: GRPCStatus{Code: 14, Message: "down 100%"}})
		_, err := check(t, c)
		// grpc-go names the attempts before the last status's message.
		if s := status.Convert(err); s.Code() != codes.Unavailable || !strings.HasSuffix(s.Message(), "down 100%") {
			t.Fatalf("Check: %v, want UNAVAILABLE with the fault's message (decoded)", err)
		}
		if es := await(t, p, 3); es[2].UpstreamCalls != 0 || es[2].Status != 200 || es[2].ResponseHeaders["Grpc-Status"] != "14" {
			t.Errorf("journal %+v, want three attempts answered 200 by the proxy alone", es)
		}
	})
	t.Run("pushback", func(t *testing.T) {
		t.Parallel()
		const wait = 300 * time.Millisecond
		p, c := grpcThrough(t, Rule{Name: "busy", Match: Match{First: 1}, Fault: GRPCStatus{Code: 8, Pushback: wait}})
		if _, err := check(t, c); err != nil {
			t.Fatalf("Check: %v, want the retry after the pushback to pass", err)
		}
		es := await(t, p, 2)
		if gap := es[1].Received.Sub(es[0].Received); gap < wait || es[1].UpstreamCalls != 1 {
			t.Errorf("retry %v after the refusal, upstream calls %d; want at least %v, then the server", gap, es[1].UpstreamCalls, wait)
		}
	})
	t.Run("negative pushback", func(t *testing.T) {
		t.Parallel()
		p, c := grpcThrough(t, Rule{Name: "stop", Match: Match{First: 1}, Fault: GRPCStatus{Code: 8, Message: "quota", Pushback: -1}})
		md, err := check(t, c)
		if s, pb := status.Convert(err), md.Get("grpc-retry-pushback-ms"); s.Code() != codes.ResourceExhausted || len(pb) != 1 || pb[0] != "-1" {
			t.Fatalf("Check: %v (trailer %v), want RESOURCE_EXHAUSTED with pushback -1", err, md)
		}
		if _, err := check(t, c); err != nil {
			t.Fatalf("second Check: %v", err)
		}
		if es := await(t, p, 2); es[0].Rule != "stop" || es[1].Rule != "" {
			t.Errorf("journal %+v, want the refusal not retried: the next exchange is the second call", es)
		}
	})
}

func TestGRPCStatus_Validate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		f    GRPCStatus
		want bool
	}{
		{GRPCStatus{Code: 14}, true},
		{GRPCStatus{Code: 16, Pushback: -time.Millisecond}, true},
		{GRPCStatus{}, false},
		{GRPCStatus{Code: 17}, false},
		{GRPCStatus{Code: 14, Delay: -1}, false},
	} {
		if err := tt.f.Validate(); (err == nil) != tt.want {
			t.Errorf("%+v: %v, want valid %v", tt.f, err, tt.want)
		}
	}
}

func TestGRPCPercentEncode(t *testing.T) {
	t.Parallel()
	if got := grpcPercentEncode("down 100%\nnow é"); got != "down 100%25%0Anow %C3%A9" {
		t.Errorf("got %q", got)
	}
}

// TestGRPCStatus_rulesFile: the rules in CREATING_FAULTS.md's gRPC section
// parse as written.
func TestGRPCStatus_rulesFile(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("CREATING_FAULTS.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, _ := strings.Cut(string(doc), "## HTTP/2 and gRPC")
	_, block, _ := strings.Cut(after, "```yaml\n")
	block, _, _ = strings.Cut(block, "```")
	rf, err := ParseRules("CREATING_FAULTS.md", []byte(block))
	if err != nil {
		t.Fatal(err)
	}
	want := []GRPCStatus{{Code: 14, Message: "backend restarting"}, {Code: 8, Pushback: 250 * time.Millisecond}, {Code: 8, Pushback: -time.Millisecond}}
	if len(rf.Rules) != len(want) {
		t.Fatalf("%d rules, want %d", len(rf.Rules), len(want))
	}
	for i, r := range rf.Rules {
		if got := r.Fault.(*GRPCStatus); *got != want[i] {
			t.Errorf("rule %s: %+v, want %+v", r.Name, *got, want[i])
		}
	}
}
