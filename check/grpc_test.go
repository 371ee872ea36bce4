package check

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/resilcheck/resilcheck/faults"
)

func TestGRPCCode_HTTPStatus(t *testing.T) {
	tests := []struct {
		code GRPCCode
		want int
		name string
	}{
		{0, 200, "OK (0)"}, {1, 499, "CANCELLED (1)"}, {4, 504, "DEADLINE_EXCEEDED (4)"},
		{8, 429, "RESOURCE_EXHAUSTED (8)"}, {10, 409, "ABORTED (10)"}, {14, 503, "UNAVAILABLE (14)"},
		{16, 401, "UNAUTHENTICATED (16)"}, {17, 500, "code 17"},
	}
	for _, tt := range tests {
		if got := tt.code.HTTPStatus(); got != tt.want {
			t.Errorf("%d.HTTPStatus() = %d; want %d", int(tt.code), got, tt.want)
		}
		if got := tt.code.String(); got != tt.name {
			t.Errorf("%d.String() = %q; want %q", int(tt.code), got, tt.name)
		}
	}
}

// TestHarness_Send_grpc sends a gRPC operation over h2c to servers
// answering as gRPC does: the status in trailers, in the headers of a
// Trailers-Only answer, or missing.
func TestHarness_Send_grpc(t *testing.T) {
	tests := []struct {
		name     string
		answer   func(w http.ResponseWriter)
		status   int
		code     GRPCCode
		protoErr bool
	}{
		{"trailers", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/grpc")
			w.Header().Set("Trailer", "Grpc-Status")
			w.Write([]byte{0, 0, 0, 0, 0})
			w.Header().Set("Grpc-Status", "0")
		}, 200, 0, false},
		{"trailers-only", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/grpc")
			w.Header().Set("Grpc-Status", "14")
			w.Header().Set("Grpc-Message", "ledger%3A down")
		}, 503, 14, false},
		{"no status", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/grpc")
		}, 200, 0, true},
		{"proxy refusal", func(w http.ResponseWriter) { w.WriteHeader(http.StatusBadGateway) }, 502, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var proto string
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				proto = r.Proto
				tt.answer(w)
			}))
			srv.Config.Protocols = new(http.Protocols)
			srv.Config.Protocols.SetUnencryptedHTTP2(true)
			srv.Start()
			defer srv.Close()
			tr := &http.Transport{Protocols: new(http.Protocols)}
			tr.Protocols.SetUnencryptedHTTP2(true)
			h := &Harness{TargetURL: srv.URL, Client: &http.Client{Transport: tr}, Operation: Operation{
				GRPC: true, Path: "/p.S/M", Render: func(Values, bool) ([]byte, error) { return []byte{0, 0, 0, 0, 0}, nil },
			}}
			r := h.Send(context.Background(), Call{Key: "k"})
			if proto != "HTTP/2.0" {
				t.Errorf("the request went as %s; want HTTP/2.0", proto)
			}
			if (r.Err != nil) != tt.protoErr {
				t.Fatalf("Send err = %v; want a protocol error %v", r.Err, tt.protoErr)
			}
			if r.Status != tt.status {
				t.Errorf("Status %d; want %d", r.Status, tt.status)
			}
			if tt.code == 14 {
				if got, want := Describe(r), `UNAVAILABLE (14) "ledger: down", judged as 503`; got != want {
					t.Errorf("Describe = %s; want %s", got, want)
				}
			}
			if tt.status == 200 && !tt.protoErr || tt.code != 0 {
				if r.GRPC == nil || r.GRPC.Code != tt.code {
					t.Errorf("GRPC %+v; want code %d", r.GRPC, tt.code)
				}
			}
		})
	}
}

func TestNeedHTTPAnswers_Unmet(t *testing.T) {
	for _, tt := range []struct {
		op  Operation
		met bool
	}{{Operation{Path: "/v1/payments"}, true}, {Operation{GRPC: true, Path: "/p.S/M"}, false}} {
		if why := NeedHTTPAnswers.Unmet(&Harness{Operation: tt.op}); (why == "") != tt.met {
			t.Errorf("GRPC %v: Unmet = %q, want met %v", tt.op.GRPC, why, tt.met)
		}
	}
}

func TestAnswerStatus(t *testing.T) {
	for _, tt := range []struct {
		name string
		e    faults.Entry
		want int
	}{
		{"HTTP", faults.Entry{Status: 502}, 502},
		{"gRPC OK", faults.Entry{Status: 200, ResponseHeaders: map[string]string{"Grpc-Status": "0"}}, 200},
		{"gRPC UNAVAILABLE", faults.Entry{Status: 200, ResponseHeaders: map[string]string{"Grpc-Status": "14"}}, 503},
		{"not a code", faults.Entry{Status: 200, ResponseHeaders: map[string]string{"Grpc-Status": "x"}}, 200},
		{"proxy refusal", faults.Entry{Status: 503, ResponseHeaders: map[string]string{"Grpc-Status": "0"}}, 503},
	} {
		if got := AnswerStatus(tt.e); got != tt.want {
			t.Errorf("%s: AnswerStatus = %d; want %d", tt.name, got, tt.want)
		}
	}
}

func TestAnswerText(t *testing.T) {
	for _, tt := range []struct {
		name string
		e    faults.Entry
		want string
	}{
		{"none", faults.Entry{}, "nothing"},
		{"HTTP", faults.Entry{Status: 502}, "502"},
		{"gRPC UNAVAILABLE", faults.Entry{Status: 200, ResponseHeaders: map[string]string{"Grpc-Status": "14"}}, "UNAVAILABLE (14), judged as 503"},
		{"gRPC OK", faults.Entry{Status: 200, ResponseHeaders: map[string]string{"Grpc-Status": "0"}}, "OK (0), judged as 200"},
	} {
		if got := AnswerText(tt.e); got != tt.want {
			t.Errorf("%s: AnswerText = %q; want %q", tt.name, got, tt.want)
		}
	}
}
