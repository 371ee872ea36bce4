package targets

import "fmt"

// GRPCDependency declares a dependency a gRPC service whose effectful call
// is one unary method: the ledger counts calls to Method, and a stand-in
// answers them with Response encoded from stand_in.body (JSON, protojson),
// as a gRPC server does. The zero value is not gRPC.
type GRPCDependency struct {
	Method   string `yaml:"method"`   // the effectful call's path, /package.Service/Method; required
	Proto    string `yaml:"proto"`    // the .proto file declaring it, relative to the spec's directory; required
	Response string `yaml:"response"` // the method's response message's full name, package.Message; required
}

// Declared reports whether the dependency is gRPC.
func (g GRPCDependency) Declared() bool { return g != GRPCDependency{} }

// Compile compiles g's proto file, found relative to dir, and returns the
// codec of the method's response message; the error names the field at
// fault, as GRPC.Compile's does.
func (g GRPCDependency) Compile(dir string) (*GRPCCodec, error) {
	md, err := compileMethod(nil, dir, g.Proto, g.Method)
	if err != nil {
		return nil, err
	}
	if got := string(md.Output().FullName()); got != g.Response {
		return nil, fmt.Errorf("response: %s returns %s, not %q", g.Method, got, g.Response)
	}
	return &GRPCCodec{method: g.Method, msg: md.Output()}, nil
}
