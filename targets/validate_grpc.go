package targets

import (
	"cmp"
	"strings"
)

// checkGRPC validates the gRPC call operation o at p declares: its
// method, a proto file that compiles and declares the method taking the
// request message, bodies that are that message in JSON on the sample
// values, or two message files in its binary format in their place, and
// a service spoken to over HTTP/2, as gRPC needs.
func (v *validator) checkGRPC(p string, o Operation, bodyOK bool) {
	g := o.GRPC
	fields := []grpcField{{name: "method", val: g.Method, eg: "/payments.v1.Payments/CreatePayment"}}
	encoded := g.Message != "" || g.AltMessage != ""
	if !encoded || g.Proto != "" || g.Request != "" {
		fields = append(fields,
			grpcField{name: "proto", val: g.Proto, eg: "payments.proto"},
			grpcField{name: "request", val: g.Request, eg: "payments.v1.CreatePaymentRequest"})
	}
	if encoded {
		fields = append(fields,
			grpcField{name: "message", val: g.Message, eg: "create.binpb", when: "beside alt_message"},
			grpcField{name: "alt_message", val: g.AltMessage, eg: "create-other-amount.binpb",
				when: "with message: another payload, which the mismatch checks send under a key already used"})
		// The files are the messages: a body beside them would not be sent.
		if o.Body != "" {
			v.errf(p+".body", "grpc.message is the request message; leave body out")
		}
		if o.AltBody != "" {
			v.errf(p+".alt_body", "grpc.alt_message is the different payload; leave alt_body out")
		}
	}
	codec, ok := v.grpcSection(p+".grpc", "a gRPC call", fields, g.Compile)
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
	if !ok || !bodyOK || encoded {
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

// grpcField is a field of a grpc section, its value and an example, and
// when it is required if not for the whole section ("with message: ...").
type grpcField struct{ name, val, eg, when string }

// grpcSection checks the grpc section at p (of what, "a gRPC call"):
// every field is required, and compile, given the spec's directory, must
// find what they name; its error names the field at fault ("proto: ...").
// It returns the compiled codec, and false when there is none.
func (v *validator) grpcSection(p, what string, fields []grpcField, compile func(dir string) (*GRPCCodec, error)) (*GRPCCodec, bool) {
	missing := false
	for _, f := range fields {
		if f.val == "" {
			v.errf(p+"."+f.name, "required %s, e.g. %s", cmp.Or(f.when, "for "+what), f.eg)
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
