package targets

import (
	"encoding/binary"
	"net/http"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

func TestGRPCCodec_Request(t *testing.T) {
	g := GRPC{Method: "/payments.v1.Payments/CreatePayment", Proto: "payments.proto", Request: "payments.v1.CreatePaymentRequest"}
	c, err := g.Compile("testdata/bad")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, body string
		want       []byte // the protobuf message; nil = an error
	}{
		{"fields", `{"amount": 7, "currency": "EUR"}`, protowire.AppendString(protowire.AppendTag(protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 7), 2, protowire.BytesType), "EUR")},
		{"empty", `{}`, []byte{}},
		{"unknown field", `{"colour": 1}`, nil},
		{"not JSON", `amount=7`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := c.Request(Request{Method: "GET", Path: "/x", Body: []byte(tt.body), Header: http.Header{"Idempotency-Key": {"k"}}})
			if tt.want == nil {
				if err == nil {
					t.Fatalf("Request(%s) succeeded; want an error", tt.body)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Method != http.MethodPost || r.Path != g.Method {
				t.Errorf("request %s %s; want POST %s", r.Method, r.Path, g.Method)
			}
			if r.Header.Get("Content-Type") != "application/grpc" || r.Header.Get("Te") != "trailers" || r.Header.Get("Idempotency-Key") != "k" {
				t.Errorf("headers %v", r.Header)
			}
			if len(r.Body) < 5 || r.Body[0] != 0 || int(binary.BigEndian.Uint32(r.Body[1:5])) != len(r.Body)-5 {
				t.Fatalf("frame % x: want flag 0 and the message's length", r.Body)
			}
			if got := r.Body[5:]; string(got) != string(tt.want) {
				t.Errorf("message % x; want % x", got, tt.want)
			}
		})
	}
}

func TestGRPC_Compile(t *testing.T) {
	ok := GRPC{Method: "/payments.v1.Payments/CreatePayment", Proto: "payments.proto", Request: "payments.v1.CreatePaymentRequest"}
	tests := []struct {
		name string
		g    GRPC
		ok   bool
	}{
		{"valid", ok, true},
		{"bad method", GRPC{Method: "payments.v1.Payments.CreatePayment", Proto: ok.Proto, Request: ok.Request}, false},
		{"unknown service", GRPC{Method: "/payments.v1.Refunds/CreatePayment", Proto: ok.Proto, Request: ok.Request}, false},
		{"missing file", GRPC{Method: ok.Method, Proto: "none.proto", Request: ok.Request}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.g.Compile("testdata/bad"); (err == nil) != tt.ok {
				t.Errorf("Compile = %v; want ok %v", err, tt.ok)
			}
		})
	}
}
