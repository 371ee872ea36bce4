package targets

import (
	"strings"
	"text/template"
)

// checkGRPCDependency validates the gRPC dependency d at p declares: its
// three fields, a proto file that compiles and declares the method
// returning the response message, the call left to grpc.method, an
// upstream spoken to over HTTP/2, and a stand-in answering OK with that
// message in JSON on sample values.
func (v *validator) checkGRPCDependency(p string, d Dependency) {
	g := d.GRPC
	codec, ok := v.grpcSection(p+".grpc", "a gRPC dependency", []grpcField{
		{name: "method", val: g.Method, eg: "/ledger.v1.Ledger/CreateEntry"},
		{name: "proto", val: g.Proto, eg: "ledger.proto"},
		{name: "response", val: g.Response, eg: "ledger.v1.CreateEntryResponse"},
	}, g.Compile)
	if d.Method != "" && !strings.EqualFold(d.Method, "POST") {
		v.errf(p+".method", "a gRPC call is a POST; leave method out")
	}
	if d.Path != "" && d.Path != g.Method {
		v.errf(p+".path", "a gRPC dependency's call goes to grpc.method %s; leave path out", g.Method)
	}
	if d.Upstream != "" && !d.Protocol.HTTP2() {
		v.errf(p+".protocol", "gRPC needs HTTP/2: set protocol to h2c (or h2 for an https upstream)")
	}
	if d.StandIn.Status != 0 && d.StandIn.Status != 200 {
		v.errf(p+".stand_in.status", "a gRPC stand-in answers 200 with grpc-status 0; leave status out (a grpc-status fault rule answers an error)")
	}
	if !ok || d.StandIn.Body == "" || d.Upstream != "" {
		return
	}
	body, err := renderStandIn(d.StandIn.Body)
	if err != nil {
		v.errf(p+".stand_in.body", "%s", err)
		return
	}
	if _, err := codec.Message([]byte(body)); err != nil {
		v.errf(p+".stand_in.body", "on sample values, not a %s in JSON: %s", g.Response, protojsonProblem(err))
	}
}

// protojsonProblem is err's protojson cause with its randomized spaces
// made plain, so the message is the same from run to run.
func protojsonProblem(err error) string {
	if u, ok := err.(interface{ Unwrap() error }); ok && u.Unwrap() != nil {
		err = u.Unwrap()
	}
	return strings.ReplaceAll(err.Error(), "\u00a0", " ")
}

// standInSample is what a stand-in body template sees (the proxy's
// request data), filled with sample values.
type standInSample struct {
	Method, Path, Query, Body string
	N                         uint64
}

// Header returns a sample request header: every one is empty.
func (standInSample) Header(string) string { return "" }

// renderStandIn renders a stand-in body on sample values, as the proxy
// renders it for a request (faults.Respond): a template when it holds
// "{{", else as is.
func renderStandIn(body string) (string, error) {
	if !strings.Contains(body, "{{") {
		return body, nil
	}
	t, err := template.New("body").Option("missingkey=error").Parse(body)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := t.Execute(&b, standInSample{Method: "POST", Path: "/", N: 1}); err != nil {
		return "", err
	}
	return b.String(), nil
}
