package target

import "github.com/resilcheck/resilcheck/internal/reference/defect"

// grpcMatrix: the defects of the gRPC face alone, whose code a call of the
// HTTP face never runs; TestGRPCReference_matrix certifies the face with
// each, so TestMatrix, which certifies the HTTP face, leaves them out.
//
// grpc-ignore-deadline drives every call by the service's 2 s maximum
// whatever its grpc-timeout: the processor is told ~2 s where less was
// left (DL-04, and DL-03p in its first case with a call), the call and its
// retries go on past the caller's deadline (DL-03, DL-06) and past a
// caller who left (DL-07), and the caller is answered at 2 s, not by its
// budget (HS-18). A call without grpc-timeout is driven as before (HS-18b
// passes). One whose grpc-timeout is 0 grpc-go mostly refuses while it
// reads the message, its context already done; when the message is
// already buffered its select may hand it over instead (recvBufferReader),
// and the handler charges it (DL-06b may fail).
var grpcMatrix = map[defect.Name]Expectation{
	defect.GRPCIgnoreDeadline: {Must: []string{"DL-03", "DL-03p", "DL-04", "DL-06", "DL-07", "HS-18"}, May: []string{"DL-06b"}, Direct: grpcDirect},
}

// grpcDirect names the test that certifies the gRPC face's defects.
const grpcDirect = "TestGRPCReference_matrix"
