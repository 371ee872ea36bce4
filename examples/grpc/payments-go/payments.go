package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// The defects -break selects.
const (
	breakNoDedupe     = "no-dedupe"           // no key store: every call charges and answers with a new payment id
	breakNoForwardKey = "no-forward-key"      // the charge reaches the ledger without Idempotency-Key
	breakFreshKey     = "fresh-key"           // the ledger's key is the charge's new payment id, not the caller's key
	breakOverRetry    = "over-retry"          // the gRPC ledger's retry policy allows 5 attempts, not 3
	breakAttemptKey   = "key-per-attempt"     // the gRPC ledger's key is minted anew for every attempt
	breakOwnRetries   = "own-retries"         // the gRPC ledger is retried by a loop blind to pushback, not by grpc-go
	breakServerErrors = "retry-server-errors" // the gRPC ledger's policy retries INTERNAL and UNKNOWN too
	breakEveryCode    = "retry-every-code"    // the gRPC ledger's policy retries every error code
)

// payments implements payments.v1.Payments.
type payments struct {
	ledger ledger
	brk    string
	seq    atomic.Int64

	mu   sync.Mutex
	keys map[string]*entry // by tenant and key
}

// entry is one key's payment: in flight until done is set, then its first
// answer, replayed to every retry with the same request.
type entry struct {
	fingerprint string
	done        bool
	resp        *createPaymentResponse
}

// CreatePayment charges req.Amount once per (x-tenant-id, idempotency-key):
// a retry of a completed payment gets the stored answer, a copy arriving
// while it is in flight ABORTED, the key with another request
// FAILED_PRECONDITION, a call without a key INVALID_ARGUMENT.
func (p *payments) CreatePayment(ctx context.Context, req *createPaymentRequest) (*createPaymentResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	key := first(md.Get("idempotency-key"))
	if key == "" {
		return nil, status.Error(codes.InvalidArgument, "the idempotency-key metadata is required")
	}
	scope := key
	if tenant := first(md.Get("x-tenant-id")); tenant != "" {
		scope = tenant + "/" + key
	}
	if msg := p.ledger.keyProblem(scope); msg != "" {
		return nil, status.Error(codes.InvalidArgument, msg)
	}
	if p.brk == breakNoDedupe {
		return p.charge(ctx, scope, req)
	}
	fp := fmt.Sprintf("%d/%s", req.Amount, req.Currency)
	p.mu.Lock()
	e, seen := p.keys[scope]
	switch {
	case seen && e.fingerprint != fp:
		p.mu.Unlock()
		return nil, status.Error(codes.FailedPrecondition, "the idempotency key was used with another request")
	case seen && !e.done:
		p.mu.Unlock()
		return nil, status.Error(codes.Aborted, "a request with this idempotency key is in flight")
	case seen:
		p.mu.Unlock()
		return e.resp, nil
	}
	e = &entry{fingerprint: fp}
	p.keys[scope] = e
	p.mu.Unlock()

	resp, err := p.charge(ctx, scope, req)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		// Nothing stored: a retry charges again, under the same key, so
		// the ledger counts it once.
		delete(p.keys, scope)
		return nil, err
	}
	e.done, e.resp = true, resp
	return resp, nil
}

// charge records the payment at the ledger under scope, its
// Idempotency-Key (none under no-forward-key, the new payment's id under
// fresh-key).
func (p *payments) charge(ctx context.Context, scope string, req *createPaymentRequest) (*createPaymentResponse, error) {
	resp := &createPaymentResponse{ID: fmt.Sprintf("pay_%d", p.seq.Add(1)), Amount: req.Amount, Currency: req.Currency}
	key := scope
	switch p.brk {
	case breakNoForwardKey:
		key = ""
	case breakFreshKey:
		key = resp.ID
	}
	if err := p.ledger.charge(ctx, key, resp); err != nil {
		return nil, err
	}
	return resp, nil
}

func first(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}

// paymentsDesc is what protoc-gen-go-grpc would generate for
// payments.v1.Payments: one unary method.
var paymentsDesc = grpc.ServiceDesc{
	ServiceName: "payments.v1.Payments",
	HandlerType: (*any)(nil),
	Methods: []grpc.MethodDesc{{
		MethodName: "CreatePayment",
		Handler: func(srv any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
			req := new(createPaymentRequest)
			if err := dec(req); err != nil {
				return nil, err
			}
			return srv.(*payments).CreatePayment(ctx, req)
		},
	}},
	Metadata: "payments.proto",
}
