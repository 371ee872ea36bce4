// Package grpc holds gRPC services certified by resilcheck through its
// HTTP/2 front proxy, with expectations written from their code:
// payments-go (grpc-go v1.85.0 over h2c), a Go module of its own. `go
// test ./examples/grpc` certifies each variant.
package grpc
