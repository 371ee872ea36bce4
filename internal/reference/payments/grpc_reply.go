package payments

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// answer turns rep, the HTTP face's answer, into the gRPC face's: a 2xx
// body is the Payment message, anything else a status whose code
// google.rpc.Code maps back to rep's status class (grpcCode). A replay
// says so in the idempotent-replayed header, and a wait the HTTP face
// would send as Retry-After goes as grpc-retry-pushback-ms (gRFC A6).
func (f *grpcFace) answer(ctx context.Context, rep reply) (proto.Message, error) {
	if rep.replayed {
		_ = grpc.SetHeader(ctx, metadata.Pairs("idempotent-replayed", "true"))
	}
	if rep.retryAfter > 0 {
		_ = grpc.SetTrailer(ctx, metadata.Pairs("grpc-retry-pushback-ms", strconv.FormatInt(rep.retryAfter.Milliseconds(), 10)))
	}
	if rep.status < 200 || rep.status > 299 {
		var p Problem
		msg := string(rep.body)
		if json.Unmarshal(rep.body, &p) == nil && p.Title != "" {
			msg = p.Title + ": " + p.Detail
		}
		return nil, grpcstatus.Error(grpcCode(rep.status), msg)
	}
	var v paymentView
	if err := json.Unmarshal(rep.body, &v); err != nil {
		// A stored body the service wrote itself: never seen, but an
		// answer must not be made up.
		return nil, grpcstatus.Error(codes.Internal, fmt.Sprintf("payments: stored answer unreadable: %v", err))
	}
	out := dynamicpb.NewMessage(f.method.Output())
	set := func(name protoreflect.Name, v any) {
		out.Set(out.Descriptor().Fields().ByName(name), protoreflect.ValueOf(v))
	}
	set("id", v.ID)
	set("amount", v.Amount)
	set("currency", v.Currency)
	set("status", v.Status)
	set("charge_id", v.ChargeID)
	return out, nil
}

// grpcCode is the code for an HTTP face's status: the code google.rpc.Code
// maps to that status where one does, else the code whose meaning it
// shares. 402 (declined) and 422 (key reused with another payload) are
// FAILED_PRECONDITION: the call is well formed, the state of the payment
// or key refuses it; 502 (the processor refused the service's own call)
// is INTERNAL, a fault no retry of the caller's fixes.
func grpcCode(httpStatus int) codes.Code {
	switch httpStatus {
	case http.StatusBadRequest:
		return codes.InvalidArgument
	case http.StatusPaymentRequired, http.StatusUnprocessableEntity:
		return codes.FailedPrecondition
	case http.StatusNotFound:
		return codes.NotFound
	case http.StatusConflict:
		return codes.Aborted
	case http.StatusTooManyRequests:
		return codes.ResourceExhausted
	case http.StatusServiceUnavailable:
		return codes.Unavailable
	case http.StatusGatewayTimeout:
		return codes.DeadlineExceeded
	case http.StatusInternalServerError, http.StatusBadGateway:
		return codes.Internal
	}
	if httpStatus >= 400 && httpStatus < 500 {
		return codes.FailedPrecondition
	}
	return codes.Unknown
}
