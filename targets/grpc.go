package targets

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// GRPC declares an operation a unary gRPC call: its body is then the
// request message written as JSON (protojson), encoded to protobuf and
// framed as gRPC's length-prefixed message. The zero value is not gRPC.
type GRPC struct {
	Method  string `yaml:"method"`  // the call's path, /package.Service/Method; required
	Proto   string `yaml:"proto"`   // the .proto file declaring it, relative to the spec's directory; required
	Request string `yaml:"request"` // the request message's full name, package.Message; required
	// Files, when set, holds Proto and its imports in place of the spec's
	// directory: a kind that brings its own service (kind reference's
	// gRPC face) brings its .proto embedded, wherever resilcheck runs.
	Files fs.FS `yaml:"-"`
}

// Declared reports whether the operation is a gRPC call.
func (g GRPC) Declared() bool { return g.Method != "" || g.Proto != "" || g.Request != "" }

// GRPCCodec turns a rendered operation into its gRPC call.
type GRPCCodec struct {
	method string
	msg    protoreflect.MessageDescriptor
}

// Compile compiles g's proto file, found relative to dir, and finds its
// method and request message; the error names what is missing.
func (g GRPC) Compile(dir string) (*GRPCCodec, error) {
	md, err := compileMethod(g.Files, dir, g.Proto, g.Method)
	if err != nil {
		return nil, err
	}
	if got := string(md.Input().FullName()); got != g.Request {
		return nil, fmt.Errorf("request: %s takes %s, not %q", g.Method, got, g.Request)
	}
	return &GRPCCodec{method: g.Method, msg: md.Input()}, nil
}

// compileMethod compiles proto, found in fsys when it is set, else relative
// to dir, and finds the unary method at path method (/package.Service/Method)
// in it. The error starts
// with the field of a grpc section at fault, "proto: " or "method: ".
func compileMethod(fsys fs.FS, dir, proto, method string) (protoreflect.MethodDescriptor, error) {
	var src *protocompile.SourceResolver
	name := proto
	if fsys != nil {
		if _, err := fs.Stat(fsys, proto); err != nil {
			return nil, fmt.Errorf("proto: %w", err)
		}
		src = &protocompile.SourceResolver{Accessor: func(path string) (io.ReadCloser, error) { return fsys.Open(path) }}
	} else {
		file := proto
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		if _, err := os.Stat(file); err != nil {
			// The path as written, not the absolute one: errors stay portable.
			return nil, fmt.Errorf("proto: cannot read %s beside the spec: %w", proto, errors.Unwrap(err))
		}
		// The file's own directory is the import root, so its siblings
		// import by bare name.
		src = &protocompile.SourceResolver{ImportPaths: []string{filepath.Dir(file)}}
		name = filepath.Base(file)
	}
	// WithStandardImports adds google/protobuf/*.proto.
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(src)}
	files, err := c.Compile(context.Background(), name)
	if err != nil {
		return nil, fmt.Errorf("proto: %w", err)
	}
	svc, name, ok := splitGRPCMethod(method)
	if !ok {
		return nil, fmt.Errorf("method: expected /package.Service/Method, got %q", method)
	}
	sd, _ := files.AsResolver().FindDescriptorByName(protoreflect.FullName(svc))
	service, isService := sd.(protoreflect.ServiceDescriptor)
	if !isService {
		return nil, fmt.Errorf("method: %s declares no service %s", proto, svc)
	}
	md := service.Methods().ByName(protoreflect.Name(name))
	if md == nil {
		return nil, fmt.Errorf("method: service %s has no method %s", svc, name)
	}
	if md.IsStreamingClient() || md.IsStreamingServer() {
		return nil, fmt.Errorf("method: %s streams; only unary methods are certified", method)
	}
	return md, nil
}

// splitGRPCMethod splits /pkg.Service/Method into pkg.Service and Method.
func splitGRPCMethod(m string) (service, method string, ok bool) {
	rest, ok := strings.CutPrefix(m, "/")
	if !ok {
		return "", "", false
	}
	service, method, ok = strings.Cut(rest, "/")
	return service, method, ok && service != "" && method != "" && !strings.Contains(method, "/")
}

// Message encodes body, the request message as JSON, to protobuf.
func (c *GRPCCodec) Message(body []byte) ([]byte, error) {
	m := dynamicpb.NewMessage(c.msg)
	if err := protojson.Unmarshal(body, m); err != nil {
		return nil, fmt.Errorf("body is not a %s in JSON: %w", c.msg.FullName(), err)
	}
	// A dynamic message ranges over its fields in map order; Deterministic
	// writes them by field number, as generated code does, so a request is
	// the same bytes every time (and a journal digest the same).
	return proto.MarshalOptions{Deterministic: true}.Marshal(m)
}

// Frame encodes body as Message does and frames it as gRPC's
// length-prefixed message (PROTOCOL-HTTP2.md): a compressed flag 0 and a
// 4-byte big-endian length before the message.
func (c *GRPCCodec) Frame(body []byte) ([]byte, error) {
	msg, err := c.Message(body)
	if err != nil {
		return nil, err
	}
	frame := make([]byte, 5, 5+len(msg))
	binary.BigEndian.PutUint32(frame[1:], uint32(len(msg)))
	return append(frame, msg...), nil
}

// Request turns r, rendered from the operation, into its gRPC call: POST
// to the method's path with the body encoded and framed (Frame),
// content-type application/grpc and te: trailers. r's other headers travel
// as metadata.
func (c *GRPCCodec) Request(r Request) (Request, error) {
	body, err := c.Frame(r.Body)
	if err != nil {
		return Request{}, err
	}
	h := r.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set("Content-Type", "application/grpc")
	h.Set("Te", "trailers")
	return Request{Method: http.MethodPost, Path: c.method, Header: h, Body: body}, nil
}
