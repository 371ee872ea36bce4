package certify

import (
	"fmt"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/targets"
)

// standInOption is the stand-in d's proxy answers with when d has no
// upstream: 200 {} as JSON unless stand_in says otherwise, or for a gRPC
// dependency its response message, encoded with the proto found relative
// to dir (the spec's directory), with grpc-status 0.
func standInOption(d targets.Dependency, dir string) (faults.Option, error) {
	body := d.StandIn.Body
	if body == "" {
		body = "{}" // JSON's empty object, and protojson's empty message
	}
	r := faults.Respond{Status: d.StandIn.Status, Headers: d.StandIn.Headers, Body: body}
	if d.GRPC.Declared() {
		codec, err := d.GRPC.Compile(dir)
		if err != nil {
			return nil, fmt.Errorf("grpc: %w", err)
		}
		return faults.WithGRPCStandIn(r, codec.Frame), nil
	}
	if r.Headers == nil {
		r.Headers = map[string]string{"Content-Type": "application/json"}
	}
	return faults.WithStandIn(r), nil
}
