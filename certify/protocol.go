package certify

import (
	"net/http"
	"strings"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/internal/launch"
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

// frontClient is the client the harness sends through the front proxy at
// front with: nil (the harness's HTTP/1.1 default) unless the service
// speaks HTTP/2, when the harness speaks h2c to the plain front proxy, so a
// gRPC service is called over HTTP/2 end to end, as gRPC requires. A front
// serving TLS is left to the default: the harness holds no CA for it.
func frontClient(proto targets.Protocol, front string) *http.Client {
	if !frontH2C(proto, front) {
		return nil
	}
	return &http.Client{Transport: targets.ProtocolH2C.Transport(&http.Transport{Proxy: nil, MaxIdleConnsPerHost: 64})}
}

// frontHealthPort is what certify's health wait speaks to health: through
// the front proxy at front, what the harness speaks there (frontClient:
// h2c for an HTTP/2 service behind a plain front); an absolute URL is a
// port of the service's own (launch.HealthPort).
func frontHealthPort(health, front string, proto targets.Protocol) targets.Protocol {
	if strings.Contains(health, "://") {
		return launch.HealthPort(health, proto)
	}
	if frontH2C(proto, front) {
		return targets.ProtocolH2C
	}
	return ""
}

// frontH2C says the harness speaks h2c to the front proxy at front: the
// service speaks HTTP/2 and the front serves plain http.
func frontH2C(proto targets.Protocol, front string) bool {
	return proto.HTTP2() && strings.HasPrefix(front, "http://")
}
