package certify

import (
	"bytes"
	"encoding/binary"
	"io"
	"log/slog"
	"net/http"
	"testing"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/targets"
	"google.golang.org/protobuf/encoding/protowire"
)

var ledgerGRPC = targets.GRPCDependency{Method: "/ledger.v1.Ledger/CreateEntry", Proto: "ledger.proto", Response: "ledger.v1.CreateEntryResponse"}

// TestStandInOption_grpc: a gRPC dependency's stand-in answers a call over
// h2c as a gRPC server: 200, application/grpc, the body's message framed,
// grpc-status 0 in trailers; the empty body is the empty message.
func TestStandInOption_grpc(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		body  string
		entry string // field 1 of the answer; "" = the empty message
	}{
		{`{"entry": "e_{{.Header "Idempotency-Key"}}"}`, "e_k1"},
		{"", ""},
	} {
		d := targets.Dependency{Name: "ledger", GRPC: ledgerGRPC, StandIn: targets.StandIn{Body: tt.body}}
		p, err := dependencyProxy(d, "testdata", 1, faults.NewJournal(), slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		req, _ := http.NewRequest(http.MethodPost, p.URL()+ledgerGRPC.Method, bytes.NewReader([]byte{0, 0, 0, 0, 0}))
		req.Header = http.Header{"Content-Type": {"application/grpc"}, "Te": {"trailers"}, "Idempotency-Key": {"k1"}}
		resp, err := frontClient(targets.ProtocolH2C, p.URL()).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/grpc" || resp.Trailer.Get("Grpc-Status") != "0" {
			t.Fatalf("body %q: answered %d %v, trailers %v; want 200 application/grpc with grpc-status 0 in trailers", tt.body, resp.StatusCode, resp.Header, resp.Trailer)
		}
		if len(b) < 5 || int(binary.BigEndian.Uint32(b[1:5])) != len(b)-5 {
			t.Fatalf("body %q: frame % x, want a length-prefixed message", tt.body, b)
		}
		var want []byte
		if tt.entry != "" {
			want = protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), tt.entry)
		}
		if !bytes.Equal(b[5:], want) {
			t.Errorf("body %q: message % x, want % x", tt.body, b[5:], want)
		}
	}
}

// TestWithEffect_grpc: a gRPC ledger's effectful call is a POST to its
// method; an HTTP ledger's, its method (POST by default) and path.
func TestWithEffect_grpc(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		dep          targets.Dependency
		method, path string
	}{
		{targets.Dependency{Name: "ledger", GRPC: ledgerGRPC}, http.MethodPost, ledgerGRPC.Method},
		{targets.Dependency{Name: "ledger", Method: http.MethodPut, Path: "/entries/*"}, http.MethodPut, "/entries/*"},
		{targets.Dependency{Name: "ledger"}, http.MethodPost, ""},
	} {
		spec := &targets.Target{Dependencies: []targets.Dependency{{Name: "other", Path: "/x"}, tt.dep},
			Effects: targets.Effects{Ledger: targets.Ledger{Dependency: "ledger"}}}
		op := withEffect(spec, adaptOperation(spec, targets.Operation{Name: "pay", Path: "/v1/payments"}))
		if op.EffectMethod != tt.method || op.EffectPath != tt.path {
			t.Errorf("%+v: effect %s %s, want %s %s", tt.dep, op.EffectMethod, op.EffectPath, tt.method, tt.path)
		}
	}
}
