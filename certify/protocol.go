package certify

import (
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/targets"
)

// protocolOptions are the proxy options for an upstream speaking proto:
// HTTP/2 only for h2c and h2 (the URL's scheme says which), none for the
// HTTP/1.1 default.
func protocolOptions(proto targets.Protocol) []faults.Option {
	if proto.HTTP2() {
		return []faults.Option{faults.WithUpstreamHTTP2()}
	}
	return nil
}
