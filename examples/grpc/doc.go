// Package grpc holds gRPC services certified by resilcheck through its
// HTTP/2 front proxy, with expectations written from their code:
// payments-go (grpc-go v1.85.0 over h2c), a Go module of its own, and
// payments-node, the same service on Node's @grpc/grpc-js 1.14.7 with
// @grpc/proto-loader 0.8.1 (npm packages locked in its
// package-lock.json); payments-go-grpcledger is payments-go calling a
// gRPC ledger with grpc-go and a retry policy, through the dependency
// proxy, whose stand-in answers as a gRPC server; payments-go-nginx is
// payments-go behind nginx's grpc_pass, with resilcheck's hop proxy
// speaking h2c between them. `go test ./examples/grpc` certifies each
// variant.
package grpc
