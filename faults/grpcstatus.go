package faults

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// GRPCStatus answers a gRPC call with an error status instead of forwarding
// it, as a gRPC server refusing the call does: HTTP 200, content-type
// application/grpc, no message, and grpc-status, grpc-message and
// grpc-retry-pushback-ms in one header block that ends the stream (the
// Trailers-Only form of gRPC's PROTOCOL-HTTP2.md). The upstream never sees
// the call. It is meant for HTTP/2 clients; gRPC has no HTTP/1.1 mapping.
type GRPCStatus struct {
	// Code is the gRPC status code, required, in [1, 16]: e.g. 14
	// UNAVAILABLE, 8 RESOURCE_EXHAUSTED, 4 DEADLINE_EXCEEDED, 10 ABORTED,
	// 13 INTERNAL.
	Code int `attr:"code"`
	// Message is sent as grpc-message, percent-encoded; empty = none.
	Message string `attr:"message"`
	// Pushback is sent as grpc-retry-pushback-ms (gRFC A6): a positive
	// wait before the client's next attempt, or a negative value, sent as
	// -1, telling the client not to retry. Zero (the default) sends none.
	Pushback time.Duration `attr:"pushback"`
	// Delay waits before answering.
	Delay time.Duration `attr:"delay"`
}

var _ Fault = GRPCStatus{}
var _ Validator = GRPCStatus{}

func init() { Register("grpc-status", func() Fault { return new(GRPCStatus) }) }

// Validate requires an error code.
func (f GRPCStatus) Validate() error {
	if f.Code < 1 || f.Code > 16 {
		return fmt.Errorf("code %d not in [1, 16]: 0 is OK, not a fault", f.Code)
	}
	if f.Delay < 0 {
		return errors.New("delay must not be negative")
	}
	return nil
}

// Inject waits Delay, then answers with the status.
func (f GRPCStatus) Inject(ex *Exchange) error {
	if err := ex.Sleep(f.Delay); err != nil {
		return err
	}
	h := ex.w.Header()
	h.Set("Content-Type", "application/grpc")
	h.Set("Grpc-Status", strconv.Itoa(f.Code))
	if f.Message != "" {
		h.Set("Grpc-Message", grpcPercentEncode(f.Message))
	}
	if v := f.pushback(); v != "" {
		h.Set("Grpc-Retry-Pushback-Ms", v)
	}
	// No body and no flush: net/http's h2 server then sends the headers
	// with END_STREAM when the handler returns, the Trailers-Only form.
	ex.writeHeader(http.StatusOK)
	return nil
}

func (f GRPCStatus) pushback() string {
	switch {
	case f.Pushback < 0:
		return "-1"
	case f.Pushback > 0:
		return strconv.FormatInt(max(f.Pushback.Milliseconds(), 1), 10)
	}
	return ""
}

// grpcPercentEncode encodes s as grpc-message wants: bytes outside
// printable ASCII, and '%' itself, as %XX of their UTF-8 bytes.
func grpcPercentEncode(s string) string {
	const hex = "0123456789ABCDEF"
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c <= 0x7e && c != '%' {
			b = append(b, c)
			continue
		}
		b = append(b, '%', hex[c>>4], hex[c&15])
	}
	return string(b)
}
