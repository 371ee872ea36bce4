package targets

import "strings"

// checkGRPC validates the gRPC call operation o at p declares: its three
// fields, a proto file that compiles and declares the method taking the
// request message, bodies that are that message in JSON on the sample
// values, and a service spoken to over HTTP/2, as gRPC needs.
func (v *validator) checkGRPC(p string, o Operation, bodyOK bool) {
	g := o.GRPC
	codec, ok := v.grpcSection(p+".grpc", "a gRPC call", []grpcField{
		{"method", g.Method, "/payments.v1.Payments/CreatePayment"},
		{"proto", g.Proto, "payments.proto"},
		{"request", g.Request, "payments.v1.CreatePaymentRequest"},
	}, g.Compile)
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
	if !ok || !bodyOK {
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
			v.errf(p+"."+b.field, "on the sample values, not a %s in JSON: %s", g.Request, protojsonProblem(err))
		}
	}
}

// grpcField is a field of a grpc section, its value and an example.
type grpcField struct{ name, val, eg string }

// grpcSection checks the grpc section at p (of what, "a gRPC call"):
// every field is required, and compile, given the spec's directory, must
// find what they name; its error names the field at fault ("proto: ...").
// It returns the compiled codec, and false when there is none.
func (v *validator) grpcSection(p, what string, fields []grpcField, compile func(dir string) (*GRPCCodec, error)) (*GRPCCodec, bool) {
	missing := false
	for _, f := range fields {
		if f.val == "" {
			v.errf(p+"."+f.name, "required for %s, e.g. %s", what, f.eg)
			missing = true
		}
	}
	if missing {
		return nil, false
	}
	codec, err := compile(v.t.Dir)
	if err != nil {
		field, msg, _ := strings.Cut(err.Error(), ": ")
		v.errf(p+"."+field, "%s", msg)
		return nil, false
	}
	return codec, true
}
