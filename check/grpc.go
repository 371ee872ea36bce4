package check

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/resilcheck/resilcheck/faults"
)

// GRPCCode is a gRPC status code, as grpc-status carries it.
type GRPCCode int

// grpcCodes names the codes and gives the HTTP status google/rpc/code.proto
// documents for each, in code order.
var grpcCodes = [...]struct {
	name string
	http int
}{
	{"OK", 200}, {"CANCELLED", 499}, {"UNKNOWN", 500}, {"INVALID_ARGUMENT", 400},
	{"DEADLINE_EXCEEDED", 504}, {"NOT_FOUND", 404}, {"ALREADY_EXISTS", 409},
	{"PERMISSION_DENIED", 403}, {"RESOURCE_EXHAUSTED", 429}, {"FAILED_PRECONDITION", 400},
	{"ABORTED", 409}, {"OUT_OF_RANGE", 400}, {"UNIMPLEMENTED", 501}, {"INTERNAL", 500},
	{"UNAVAILABLE", 503}, {"DATA_LOSS", 500}, {"UNAUTHENTICATED", 401},
}

// String names c with its number, "UNAVAILABLE (14)".
func (c GRPCCode) String() string {
	if c >= 0 && int(c) < len(grpcCodes) {
		return fmt.Sprintf("%s (%d)", grpcCodes[c].name, int(c))
	}
	return fmt.Sprintf("code %d", int(c))
}

// HTTPStatus is the HTTP status google.rpc.Code maps c to, so the suites
// judge a gRPC answer in their own terms; an unknown code is UNKNOWN's 500.
func (c GRPCCode) HTTPStatus() int {
	if c >= 0 && int(c) < len(grpcCodes) {
		return grpcCodes[c].http
	}
	return http.StatusInternalServerError
}

// grpcStatus reads a gRPC answer's status: from the trailers, or from the
// headers of a Trailers-Only answer (PROTOCOL-HTTP2.md). trailer must be
// read after the body was drained, when net/http has filled it in.
func grpcStatus(header, trailer http.Header) (GRPCCode, string, error) {
	v, msg := trailer.Get("Grpc-Status"), trailer.Get("Grpc-Message")
	if v == "" {
		v, msg = header.Get("Grpc-Status"), header.Get("Grpc-Message")
	}
	if v == "" {
		return 0, "", fmt.Errorf("gRPC protocol error: the answer carries no grpc-status (content-type %q)", header.Get("Content-Type"))
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return 0, "", fmt.Errorf("gRPC protocol error: grpc-status %q is not a code", v)
	}
	// grpc-message is percent-encoded (PROTOCOL-HTTP2.md); one that does
	// not decode is kept as sent.
	if m, err := url.PathUnescape(msg); err == nil {
		msg = m
	}
	return GRPCCode(n), msg, nil
}

// AnswerStatus is the status a journaled exchange answered with, in the
// suites' terms: for a gRPC answer (HTTP 200 with a grpc-status, which the
// journal keeps among the response headers whether it came in headers or
// trailers), the HTTP status its code maps to; otherwise e.Status. Checks
// judging front entries use it so a gRPC UNAVAILABLE is not read as 200.
func AnswerStatus(e faults.Entry) int {
	if c, ok := grpcAnswer(e); ok {
		return c.HTTPStatus()
	}
	return e.Status
}

// AnswerText renders e's answer for a story: its status ("nothing" for
// none), or for a gRPC answer its code and the status it is judged as,
// "UNAVAILABLE (14), judged as 503".
func AnswerText(e faults.Entry) string {
	if c, ok := grpcAnswer(e); ok {
		return fmt.Sprintf("%s, judged as %d", c, c.HTTPStatus())
	}
	return statusText(e.Status)
}

// grpcAnswer is e's gRPC status, when e is a gRPC answer: HTTP 200 with a
// grpc-status that is a code.
func grpcAnswer(e faults.Entry) (GRPCCode, bool) {
	v := e.ResponseHeader("Grpc-Status")
	if e.Status != http.StatusOK || v == "" {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return 0, false
	}
	return GRPCCode(n), true
}
