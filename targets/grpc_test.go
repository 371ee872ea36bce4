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
		{"encoded", GRPC{Method: ok.Method, Message: "create.binpb", AltMessage: "create-alt.binpb"}, true},
		{"encoded, checked", GRPC{Method: ok.Method, Proto: ok.Proto, Request: ok.Request, Message: "create.binpb", AltMessage: "create-alt.binpb"}, true},
		{"encoded, not the message", GRPC{Method: ok.Method, Proto: ok.Proto, Request: ok.Request, Message: "garbage.binpb", AltMessage: "create-alt.binpb"}, false},
		{"encoded, unchecked garbage", GRPC{Method: ok.Method, Message: "garbage.binpb", AltMessage: "create-alt.binpb"}, true},
		{"encoded, no alt", GRPC{Method: ok.Method, Message: "create.binpb"}, false},
		{"encoded, alt the same", GRPC{Method: ok.Method, Message: "create.binpb", AltMessage: "create.binpb"}, false},
		{"encoded, bad method", GRPC{Method: "CreatePayment", Message: "create.binpb", AltMessage: "create-alt.binpb"}, false},
		{"encoded, missing file", GRPC{Method: ok.Method, Message: "none.binpb", AltMessage: "create-alt.binpb"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.g.Compile("testdata/bad"); (err == nil) != tt.ok {
				t.Errorf("Compile = %v; want ok %v", err, tt.ok)
			}
		})
	}
}

func TestGRPCCodec_Encoded(t *testing.T) {
	g := GRPC{Method: "/payments.v1.Payments/CreatePayment", Message: "create.binpb", AltMessage: "create-alt.binpb"}
	c, err := g.Compile("testdata/bad")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		alt  bool
		want string
	}{{false, "\x08\x07\x12\x03EUR"}, {true, "\x08\x08\x12\x03EUR"}} {
		m, ok := c.Encoded(tt.alt)
		if !ok || string(m) != tt.want {
			t.Fatalf("Encoded(%v) = % x, %v; want % x", tt.alt, m, ok, tt.want)
		}
		r, err := c.Request(Request{Body: m, Header: http.Header{}})
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Body[5:]; string(got) != tt.want || int(binary.BigEndian.Uint32(r.Body[1:5])) != len(tt.want) {
			t.Errorf("frame % x; want the file's bytes % x as they are", r.Body, tt.want)
		}
	}
	json, err := GRPC{Method: g.Method, Proto: "payments.proto", Request: "payments.v1.CreatePaymentRequest"}.Compile("testdata/bad")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := json.Encoded(false); ok {
		t.Error("a codec of JSON bodies says its messages come encoded")
	}
}
