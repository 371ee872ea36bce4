package targets

import (
	"bytes"
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
// framed as gRPC's length-prefixed message; or, with Message, the message
// already encoded, sent as it is. The zero value is not gRPC.
type GRPC struct {
	Method  string `yaml:"method"`  // the call's path, /package.Service/Method; required
	Proto   string `yaml:"proto"`   // the .proto file declaring it, relative to the spec's directory; required unless Message is set
	Request string `yaml:"request"` // the request message's full name, package.Message; required with Proto
	// Message is a file, relative to the spec's directory, holding the
	// request message in protobuf's binary wire format (what `protoc
	// --encode` or `buf convert` writes), sent as every call's message in
	// place of body: for a service whose .proto the user cannot hand over.
	// With Proto and Request it is checked to be that message. Empty =
	// body, in JSON.
	Message string `yaml:"message"`
	// AltMessage is a second such file, a different payload sent under an
	// idempotency key already used (the mismatch checks); required with
	// Message, as alt_body is with a body that does not use .Amount.
	AltMessage string `yaml:"alt_message"`
	// Files, when set, holds Proto and its imports in place of the spec's
	// directory: a kind that brings its own service (kind reference's
	// gRPC face) brings its .proto embedded, wherever resilcheck runs.
	Files fs.FS `yaml:"-"`
}

// Declared reports whether the operation is a gRPC call.
func (g GRPC) Declared() bool {
	return g.Method != "" || g.Proto != "" || g.Request != "" || g.Message != "" || g.AltMessage != ""
}

// GRPCCodec turns a rendered operation into its gRPC call.
type GRPCCodec struct {
	method string
	msg    protoreflect.MessageDescriptor // nil when GRPC.Message came without a proto
	// encoded says every call sends GRPC.Message's bytes, binary, or
	// GRPC.AltMessage's, alt, as they are.
	encoded     bool
	binary, alt []byte
}

// Compile compiles g's proto file, found relative to dir, and finds its
// method and request message, and reads g's message files; the error
// starts with the field at fault ("proto: ", "message: ").
func (g GRPC) Compile(dir string) (*GRPCCodec, error) {
	c := &GRPCCodec{method: g.Method}
	if g.Proto != "" || g.Message == "" {
		md, err := compileMethod(g.Files, dir, g.Proto, g.Method)
		if err != nil {
			return nil, err
		}
		if got := string(md.Input().FullName()); got != g.Request {
			return nil, fmt.Errorf("request: %s takes %s, not %q", g.Method, got, g.Request)
		}
		c.msg = md.Input()
	} else if _, _, ok := splitGRPCMethod(g.Method); !ok {
		return nil, fmt.Errorf("method: expected /package.Service/Method, got %q", g.Method)
	}
	if g.Message == "" {
		return c, nil
	}
	var err error
	if c.binary, err = readMessage(g.Files, dir, "message", g.Message, c.msg); err != nil {
		return nil, err
	}
	if c.alt, err = readMessage(g.Files, dir, "alt_message", g.AltMessage, c.msg); err != nil {
		return nil, err
	}
	if bytes.Equal(c.binary, c.alt) {
		return nil, fmt.Errorf("alt_message: the same bytes as message; the mismatch checks need a different payload")
	}
	c.encoded = true
	return c, nil
}

// readMessage reads the message file name, written in field, found in
// fsys when it is set, else relative to dir; with md, it must decode as
// that message.
func readMessage(fsys fs.FS, dir, field, name string, md protoreflect.MessageDescriptor) ([]byte, error) {
	if name == "" {
		return nil, fmt.Errorf("%s: required with message, a different payload for the mismatch checks", field)
	}
	var b []byte
	var err error
	if fsys != nil {
		b, err = fs.ReadFile(fsys, name)
	} else {
		b, err = os.ReadFile(besideSpec(dir, name))
	}
	if err != nil {
		// The path as written, not the absolute one: errors stay portable.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: cannot read %s beside the spec: %w", field, name, err)
	}
	if len(b) > maxGRPCMessage {
		return nil, fmt.Errorf("%s: %s holds %d bytes, more than the %d a request message may", field, name, len(b), maxGRPCMessage)
	}
	if md != nil {
		// protobuf-go's error text varies from build to build (detrand),
		// so it is not repeated. A field number the message does not
		// declare, or one of another wire type, decodes as an unknown
		// field: well-formed protobuf of some other message.
		m := dynamicpb.NewMessage(md)
		if err := (proto.UnmarshalOptions{}).Unmarshal(b, m); err != nil {
			return nil, fmt.Errorf("%s: %s is not a %s in protobuf's binary format (protoc --decode=%[3]s says why)", field, name, md.FullName())
		}
		if len(m.GetUnknown()) > 0 {
			return nil, fmt.Errorf("%s: %s holds fields a %s does not declare (or of another type): another message's encoding?", field, name, md.FullName())
		}
	}
	return b, nil
}

// maxGRPCMessage bounds a message file: grpc-go's default receive limit
// (4 MiB), which a service's own server would refuse past.
const maxGRPCMessage = 4 << 20

// Encoded returns the message every call sends, already encoded
// (GRPC.Message), or alt's; false when the operation's body is JSON.
func (c *GRPCCodec) Encoded(alt bool) ([]byte, bool) {
	if !c.encoded {
		return nil, false
	}
	if alt {
		return c.alt, true
	}
	return c.binary, true
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
		file := besideSpec(dir, proto)
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

// Message encodes body, the request message as JSON, to protobuf; a
// codec of encoded messages (GRPC.Message) returns body as it is.
func (c *GRPCCodec) Message(body []byte) ([]byte, error) {
	if c.encoded {
		return body, nil
	}
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
