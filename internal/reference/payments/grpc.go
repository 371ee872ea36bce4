package payments

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

// createRoute is the HTTP face's route; the gRPC face fingerprints its
// calls as POSTs to it, so a key retried through the other face is the
// same request, not a reuse with another payload.
const createRoute = "/v1/payments"

// grpcFace serves payments.proto's CreatePayment over h2c on the HTTP
// API's port, through the same core: the store's claim, the processor's
// retried call, the defects. It reads the key and tenant from metadata
// and the budget from the call's deadline (grpc-timeout).
type grpcFace struct {
	s      *Server
	method protoreflect.MethodDescriptor
	server *grpc.Server
}

func newGRPCFace(s *Server) (*grpcFace, error) {
	md, err := createMethod()
	if err != nil {
		return nil, err
	}
	// The HTTP face reads at most maxBody of a request; the same bound
	// here, where grpc-go's default is 4 MiB, answers a larger message
	// RESOURCE_EXHAUSTED (grpc/grpc doc/statuscodes.md) before any work.
	f := &grpcFace{s: s, method: md, server: grpc.NewServer(grpc.ForceServerCodec(deterministicCodec{}), grpc.MaxRecvMsgSize(maxBody))}
	f.server.RegisterService(&grpc.ServiceDesc{
		ServiceName: grpcService,
		HandlerType: (*any)(nil),
		Methods: []grpc.MethodDesc{{
			MethodName: string(md.Name()),
			Handler: func(_ any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
				req := dynamicpb.NewMessage(md.Input())
				if err := dec(req); err != nil {
					return nil, err
				}
				return f.createPayment(ctx, req)
			},
		}},
		Metadata: ProtoFile,
	}, f)
	return f, nil
}

// isGRPC says r is a gRPC call: HTTP/2 with a gRPC content type. Anything
// else, HTTP/2 included, is for the HTTP API.
func isGRPC(r *http.Request) bool {
	return r.ProtoMajor == 2 && strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc")
}

// createPayment is POST /v1/payments as a gRPC call.
func (f *grpcFace) createPayment(ctx context.Context, m *dynamicpb.Message) (proto.Message, error) {
	s := f.s
	start := time.Now()
	budget := s.cfg.maxBudget
	if dl, ok := ctx.Deadline(); ok {
		budget = min(budget, dl.Sub(start))
	}
	if s.cfg.defects.Has(defect.GRPCIgnoreDeadline) {
		// context.Background() but for the call's values (its metadata, its
		// stream for headers and trailers): no deadline, no cancellation.
		ctx, budget = context.WithoutCancel(ctx), s.cfg.maxBudget
	}
	if budget <= 0 {
		return nil, grpcstatus.Error(codes.DeadlineExceeded, "the call's deadline had passed on arrival; nothing was done")
	}
	md, _ := metadata.FromIncomingContext(ctx)
	key, err := parseKey(md.Get("idempotency-key"))
	switch {
	case errors.Is(err, errKeyMissing):
		return nil, grpcstatus.Error(codes.InvalidArgument, "CreatePayment needs the idempotency-key metadata: a unique value per payment, reused on every retry")
	case err != nil:
		return nil, grpcstatus.Error(codes.InvalidArgument, `the idempotency-key must be one sf-string ("...") or token of [A-Za-z0-9._:~-], 1-255 characters`)
	}
	if len(m.GetUnknown()) > 0 {
		// As the HTTP face refuses unknown members: the fingerprint covers
		// only the fields it reads, so a retry differing in one it ignores
		// would replay a payment its payload did not ask for.
		return nil, grpcstatus.Error(codes.InvalidArgument, "CreatePaymentRequest carries fields payments.proto does not declare")
	}
	fields := m.Descriptor().Fields()
	req, err := paymentOf(m.Get(fields.ByName("amount")).Int(), m.Get(fields.ByName("currency")).String())
	if err != nil {
		// Not stored, as over HTTP: the corrected call may reuse the key.
		return nil, grpcstatus.Error(codes.InvalidArgument, "want amount > 0 and currency of three upper-case letters")
	}
	tenant := tenantOr(first(md.Get("x-tenant-id")))
	j := job{
		tenant: tenant, recTenant: s.recordTenant(tenant), key: key, req: req,
		fp:       fingerprint(http.MethodPost, createRoute, req.canonical),
		deadline: start.Add(budget),
	}
	return f.answer(ctx, s.create(ctx, j))
}

func first(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}

// deterministicCodec is grpc-go's proto codec writing fields in number
// order: a dynamic message otherwise ranges over them in map order, and a
// replay must be the first answer's bytes.
type deterministicCodec struct{}

func (deterministicCodec) Name() string { return "proto" }

func (deterministicCodec) Marshal(v any) ([]byte, error) {
	m, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("payments: cannot marshal %T: not a proto message", v)
	}
	return proto.MarshalOptions{Deterministic: true}.Marshal(m)
}

func (deterministicCodec) Unmarshal(b []byte, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return fmt.Errorf("payments: cannot unmarshal into %T: not a proto message", v)
	}
	return proto.Unmarshal(b, m)
}
