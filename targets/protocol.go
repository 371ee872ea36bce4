package targets

import "net/http"

// Transport sets tr to speak p to its servers: HTTP/2 alone (with prior
// knowledge in the clear) for h2c and h2, and tr's own default, HTTP/1.1
// or HTTP/2 by ALPN, otherwise. resilcheck's own clients of the service
// (its health route, its probes) use it, so an HTTP/2-only service can
// be reached.
func (p Protocol) Transport(tr *http.Transport) *http.Transport {
	var ps http.Protocols
	switch p {
	case ProtocolH2C:
		ps.SetUnencryptedHTTP2(true)
	case ProtocolH2:
		ps.SetHTTP2(true)
	default:
		return tr
	}
	tr.Protocols = &ps
	return tr
}
