package targets

import (
	"cmp"
	"fmt"
	"strings"
)

// checkProtocols validates what the spec says about HTTP/2 to upstreams: a
// known protocol whose name agrees with the URL's scheme (h2c in the clear,
// h2 over TLS), and none for a stand-in, which has no upstream to speak it
// to. Kind reference's own validation says what each of its faces speaks.
func (v *validator) checkProtocols() {
	s := v.t.Service
	switch {
	case v.kind == KindReference:
	case s.URL != "" || v.kind == KindProcess:
		v.checkProtocol("service.protocol", s.Protocol, cmp.Or(s.URL, DefaultProcessURL))
	}
	for i, d := range v.t.Dependencies {
		p := fmt.Sprintf("dependencies[%d].protocol", i)
		if d.Upstream == "" && d.Protocol != "" {
			v.errf(p, "a stand-in answers itself; protocol applies to an upstream")
			continue
		}
		v.checkProtocol(p, d.Protocol, d.Upstream)
	}
}

// checkProtocol checks proto for an upstream at url.
func (v *validator) checkProtocol(path string, proto Protocol, url string) {
	tls := strings.HasPrefix(url, "https://")
	switch {
	case proto == "" || proto == ProtocolHTTP1:
	case proto == ProtocolH2C && tls:
		v.errf(path, "h2c is HTTP/2 in the clear, and %s is https; use h2", url)
	case proto == ProtocolH2 && !tls:
		v.errf(path, "h2 is HTTP/2 over TLS, and %s is not https; use h2c", url)
	case !proto.HTTP2():
		v.errf(path, "unknown protocol %q; want http/1.1 (the default), h2c or h2", proto)
	}
}
