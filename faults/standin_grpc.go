package faults

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
)

// WithGRPCStandIn makes the stand-in (see WithStandIn) answer as a gRPC
// server answers a unary call: HTTP 200, content-type application/grpc,
// r's headers as leading metadata, the rendered body turned by encode into
// the length-prefixed message(s) sent, and grpc-status 0 in trailers. r's
// Status is not used. The proxy knows no protobuf: encode does, and r's
// template sees the request's .Body as it came, framed binary protobuf.
func WithGRPCStandIn(r Respond, encode func(rendered []byte) ([]byte, error)) Option {
	return func(p *Proxy) { p.standIn, p.standInGRPC = r, encode }
}

// standInResponse is the stand-in's answer to ex as if an upstream sent it.
func (p *Proxy) standInResponse(ex *Exchange) (*http.Response, error) {
	if p.standInGRPC == nil {
		return p.standIn.response(ex)
	}
	return p.standIn.grpcResponse(ex, p.standInGRPC)
}

// grpcResponse is f's answer as a gRPC server's OK: its trailer is set
// already, where an upstream's is filled in at the end of the body, and
// the proxy relays it the same way (relayTrailers).
func (f Respond) grpcResponse(ex *Exchange, encode func([]byte) ([]byte, error)) (*http.Response, error) {
	if err := ex.Sleep(f.Delay); err != nil {
		return nil, err
	}
	body, err := f.render(ex)
	if err != nil {
		return nil, err
	}
	msg, err := encode(body)
	if err != nil {
		return nil, fmt.Errorf("faults: gRPC stand-in answer: %w", err)
	}
	h := make(http.Header, len(f.Headers)+1)
	for k, v := range f.Headers {
		h.Set(k, v)
	}
	h.Set("Content-Type", "application/grpc")
	return &http.Response{
		StatusCode: http.StatusOK, Header: h, ContentLength: -1,
		Trailer: http.Header{"Grpc-Status": {"0"}},
		Body:    io.NopCloser(bytes.NewReader(msg)), Proto: "HTTP/2.0", ProtoMajor: 2,
	}, nil
}
