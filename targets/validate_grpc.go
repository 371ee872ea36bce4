package targets

import (
	"errors"
	"strings"
)

// checkGRPC validates the gRPC call operation o at p declares: its three
// fields, a proto file that compiles and declares the method taking the
// request message, bodies that are that message in JSON on the sample
// values, and a service spoken to over HTTP/2, as gRPC needs.
func (v *validator) checkGRPC(p string, o Operation, bodyOK bool) {
	g := o.GRPC
	missing := false
	for _, f := range []struct{ name, val, eg string }{
		{"method", g.Method, "/payments.v1.Payments/CreatePayment"},
		{"proto", g.Proto, "payments.proto"},
		{"request", g.Request, "payments.v1.CreatePaymentRequest"},
	} {
		if f.val == "" {
			v.errf(p+".grpc."+f.name, "required for a gRPC call, e.g. %s", f.eg)
			missing = true
		}
	}
	if !v.t.Service.Protocol.HTTP2() && v.kind != KindClient {
		v.errf(p+".grpc", "gRPC needs HTTP/2: set service.protocol to h2c (or h2 for an https service)")
	}
	// The call is always a POST of application/grpc (GRPCCodec.Request):
	// say so rather than send something other than what is written.
	if o.Method != "" && !strings.EqualFold(o.Method, "POST") {
		v.errf(p+".method", "a gRPC call is a POST; leave method out")
	}
	if o.ContentType != "" && !strings.HasPrefix(o.ContentType, "application/grpc") && o.ContentType != defaultContentType {
		v.errf(p+".content_type", "a gRPC call is sent as application/grpc; leave content_type out")
	}
	if missing {
		return
	}
	codec, err := g.Compile(v.t.Dir)
	if err != nil {
		field, msg, _ := strings.Cut(err.Error(), ": ")
		v.errf(p+".grpc."+field, "%s", msg)
		return
	}
	if !bodyOK {
		return
	}
	for _, b := range []struct{ field, text string }{{"body", o.Body}, {"alt_body", o.AltBody}} {
		if b.text == "" {
			continue
		}
		r, err := Render(b.text, sampleRequest)
		if err != nil {
			continue // the template check reported it
		}
		if _, err := codec.Message([]byte(r)); err != nil {
			// protojson's own error, its randomized spaces made plain, so
			// the message is the same from run to run.
			msg := strings.ReplaceAll(errors.Unwrap(err).Error(), "\u00a0", " ")
			v.errf(p+"."+b.field, "on the sample values, not a %s in JSON: %s", g.Request, msg)
		}
	}
}
