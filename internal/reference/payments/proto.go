package payments

import (
	"context"
	"embed"
	"fmt"
	"io"
	"sync"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The gRPC face's definition: ProtoFile in Proto declares GRPCMethod, which
// takes GRPCRequest. A harness compiles the same file to encode its calls.
const (
	ProtoFile   = "payments.proto"
	GRPCMethod  = "/payments.v1.Payments/CreatePayment"
	GRPCRequest = "payments.v1.CreatePaymentRequest"
	grpcService = "payments.v1.Payments"
)

// Proto holds ProtoFile.
//
//go:embed payments.proto
var Proto embed.FS

// createMethod is CreatePayment's descriptor, compiled from Proto once per
// process: every stack a test starts shares it.
var createMethod = sync.OnceValues(func() (protoreflect.MethodDescriptor, error) {
	c := protocompile.Compiler{Resolver: &protocompile.SourceResolver{
		Accessor: func(path string) (io.ReadCloser, error) { return Proto.Open(path) },
	}}
	files, err := c.Compile(context.Background(), ProtoFile)
	if err != nil {
		return nil, fmt.Errorf("payments: compiling %s: %w", ProtoFile, err)
	}
	d, err := files.AsResolver().FindDescriptorByName(grpcService)
	if err != nil {
		return nil, fmt.Errorf("payments: %s: %w", ProtoFile, err)
	}
	sd, ok := d.(protoreflect.ServiceDescriptor)
	if !ok || sd.Methods().ByName("CreatePayment") == nil {
		return nil, fmt.Errorf("payments: %s declares no %s", ProtoFile, GRPCMethod)
	}
	return sd.Methods().ByName("CreatePayment"), nil
})
