package launch

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/resilcheck/resilcheck/targets"
)

// grpcServing is HealthCheckResponse.ServingStatus SERVING, the one
// answer of the gRPC Health Checking Protocol that says healthy.
const grpcServing = 1

// grpcServingNames names HealthCheckResponse.ServingStatus values for an
// error (grpc/grpc-proto, grpc/health/v1/health.proto).
var grpcServingNames = map[uint64]string{0: "UNKNOWN", 1: "SERVING", 2: "NOT_SERVING", 3: "SERVICE_UNKNOWN"}

// errGRPCHealth marks a gRPC health answer that is not SERVING.
var errGRPCHealth = errors.New("gRPC health")

// isGRPCHealth says target is the gRPC Health Checking Protocol's Check
// method (targets.GRPCHealthPath), which is called, not fetched.
func isGRPCHealth(target string) bool {
	u, err := url.Parse(target)
	return err == nil && targets.IsGRPCHealth(u.Path)
}

// probeGRPCHealth calls grpc.health.v1.Health/Check for the whole server
// (an empty HealthCheckRequest) over client, which must speak HTTP/2, and
// answers 200 for SERVING. Any other answer is 503 with an error naming
// the grpc-status or serving status the server gave; a non-200 HTTP
// status comes back as it is.
func probeGRPCHealth(ctx context.Context, client *http.Client, target string) (int, error) {
	// A gRPC message: uncompressed, length 0 (every field of the request
	// left at its default).
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(make([]byte, 5)))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/grpc")
	req.Header.Set("TE", "trailers")
	resp, err := client.Do(req)
	if err != nil {
		return 0, withoutURL(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, nil
	}
	if err != nil {
		return 0, err
	}
	// A trailers-only answer carries its status among the headers.
	code := resp.Trailer.Get("Grpc-Status")
	if code == "" {
		code = resp.Header.Get("Grpc-Status")
	}
	if code != "0" {
		msg := cmp.Or(resp.Trailer.Get("Grpc-Message"), resp.Header.Get("Grpc-Message"))
		return http.StatusServiceUnavailable, fmt.Errorf("%w: grpc-status %q %s", errGRPCHealth, code, msg)
	}
	status, err := servingStatus(body)
	if err != nil {
		return http.StatusServiceUnavailable, fmt.Errorf("%w: %w", errGRPCHealth, err)
	}
	if status != grpcServing {
		name := cmp.Or(grpcServingNames[status], fmt.Sprint(status))
		return http.StatusServiceUnavailable, fmt.Errorf("%w: %s", errGRPCHealth, name)
	}
	return http.StatusOK, nil
}

// servingStatus reads HealthCheckResponse.status (field 1) from body, one
// length-prefixed gRPC message; a field left out is UNKNOWN (0).
func servingStatus(body []byte) (uint64, error) {
	if len(body) < 5 {
		return 0, fmt.Errorf("answer of %d bytes, not a gRPC message", len(body))
	}
	if body[0] != 0 {
		return 0, errors.New("a compressed answer to an uncompressed call")
	}
	n := binary.BigEndian.Uint32(body[1:5])
	msg := body[5:]
	if uint64(len(msg)) != uint64(n) {
		return 0, fmt.Errorf("message of %d bytes where the prefix says %d", len(msg), n)
	}
	var status uint64
	for len(msg) > 0 {
		num, typ, l := protowire.ConsumeTag(msg)
		if l < 0 {
			return 0, fmt.Errorf("HealthCheckResponse: %w", protowire.ParseError(l))
		}
		msg = msg[l:]
		if num == 1 && typ == protowire.VarintType {
			v, l := protowire.ConsumeVarint(msg)
			if l < 0 {
				return 0, fmt.Errorf("HealthCheckResponse.status: %w", protowire.ParseError(l))
			}
			status, msg = v, msg[l:]
			continue
		}
		l = protowire.ConsumeFieldValue(num, typ, msg)
		if l < 0 {
			return 0, fmt.Errorf("HealthCheckResponse: %w", protowire.ParseError(l))
		}
		msg = msg[l:]
	}
	return status, nil
}

// healthProtocol is what a probe of target speaks, given the protocol of
// the port it is on (the service's for a path under its URL, the HTTP/1.1
// default for an absolute URL elsewhere): HTTP/2 for the gRPC health
// method whatever the port, since gRPC needs it, h2c on plain http and h2
// over TLS.
func healthProtocol(target string, port targets.Protocol) targets.Protocol {
	switch {
	case !isGRPCHealth(target):
		return port
	case strings.HasPrefix(target, "https://"):
		return targets.ProtocolH2
	}
	return targets.ProtocolH2C
}
