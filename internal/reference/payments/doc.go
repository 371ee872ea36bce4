// Package payments is the reference stack's payments service: the one layer
// that makes POST /v1/payments safe to retry.
//
// Every POST needs an Idempotency-Key. The service claims (tenant, key) in
// the store before doing anything, drives the charge at the processor with
// the payment id as the processor's own Idempotency-Key, and commits the
// payment with its response before answering. A retry of a completed request
// replays the stored status and body byte for byte; a retry while the first
// is in flight gets 409; a reused key with another payload gets 422. A crash
// leaves an in-progress claim whose lease expires, and the next retry takes it
// over with the same payment id, so the processor dedupes and nothing is
// charged twice.
//
// The service is the only layer that retries, and only its processor call:
// failsafe-go's retry policy (full-jitter exponential backoff, Retry-After as
// the minimum wait, every wait clipped to the caller's deadline), a retry
// budget and a circuit breaker. Each defect in package defect switches off
// exactly one of these contracts. README.md publishes the idempotency policy.
//
// The same port speaks h2c too, and serves the operation to gRPC callers as
// payments.v1.Payments/CreatePayment (payments.proto, grpc.go): the same
// core behind another encoding, its key and tenant in metadata, its budget
// from grpc-timeout.
package payments
