package target

import (
	"fmt"

	"github.com/resilcheck/resilcheck/internal/reference/payments"
	"github.com/resilcheck/resilcheck/targets"
)

// The faces a spec certifies (reference.face): the gateway's HTTP API, or
// the payments service's gRPC face, reached without the gateway. Empty
// means FaceHTTP.
const (
	FaceHTTP = "http"
	FaceGRPC = "grpc"
)

// grpcFace says t certifies the gRPC face.
func grpcFace(t *targets.Target) bool { return t.Reference.Face == FaceGRPC }

// defaultGRPCFace declares the gRPC face (payments/grpc.go) where t leaves
// it out: CreatePayment over h2c at the service's own port, with no
// gateway in front (so one tier, no rate limits: the limiter is the
// gateway's), its budget read from grpc-timeout alone, and a reused key
// answered FAILED_PRECONDITION, judged as 400: the stripe profile, since
// no gRPC code maps to 422. Its webhook receiver is an HTTP route,
// certified through the HTTP face.
func defaultGRPCFace(t *targets.Target) {
	s := &t.Service
	if s.Protocol == "" {
		s.Protocol = targets.ProtocolH2C
	}
	if s.Front == "" {
		s.Front = targets.FrontDirect
	}
	if len(t.Operations) == 0 {
		t.Operations = []targets.Operation{{
			Name: operation,
			GRPC: targets.GRPC{Method: payments.GRPCMethod, Proto: payments.ProtoFile, Request: payments.GRPCRequest,
				Files: payments.Proto},
			Body:      `{"amount": {{.Amount}}, "currency": "EUR"}`,
			AltBody:   `{"amount": {{.Amount}}, "currency": "USD"}`,
			KeyHeader: "Idempotency-Key", // sent as the idempotency-key metadata
		}}
	}
	c := &t.Conventions
	if c.Profile == "" {
		c.Profile = targets.ProfileStripe
	}
	if c.DeadlineHeader == "" {
		c.DeadlineHeader = targets.DeadlineGRPCTimeout
	}
	if len(t.Policy.Deadlines.Headers) == 0 {
		t.Policy.Deadlines.Headers = []string{targets.DeadlineGRPCTimeout}
	}
}

// validateFace checks reference.face and what the face speaks: HTTP/1.1
// at the gateway, h2c at the gRPC face, which has no gateway tier.
func validateFace(t *targets.Target) []targets.Problem {
	switch t.Reference.Face {
	case "", FaceHTTP:
		if t.Service.Protocol != "" {
			return []targets.Problem{{Path: "service.protocol", Msg: "the gateway serves HTTP/1.1; leave protocol out (reference.face: grpc speaks h2c)"}}
		}
		return nil
	case FaceGRPC:
	default:
		return []targets.Problem{{Path: "reference.face", Msg: fmt.Sprintf("expected %s or %s, got %q", FaceHTTP, FaceGRPC, t.Reference.Face)}}
	}
	var probs []targets.Problem
	if len(t.Tiers) > 0 {
		probs = append(probs, targets.Problem{Path: "tiers", Msg: "the gRPC face is reached without the gateway: one tier; leave tiers out"})
	}
	if p := t.Service.Protocol; p != "" && p != targets.ProtocolH2C {
		probs = append(probs, targets.Problem{Path: "service.protocol", Msg: fmt.Sprintf("the gRPC face speaks h2c; got %s", p)})
	}
	return probs
}
