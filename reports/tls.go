package reports

import (
	"fmt"
	"io"
)

// TLS says where a run intercepted TLS: the hops whose proxy served TLS with
// the run's own certificate authority, and how each proxy verified the TLS
// it spoke onward. A report without it saw plain HTTP only.
type TLS struct {
	// Authority is the SHA-256 fingerprint of the run's CA certificate,
	// saved beside the report as CAFile; empty when no proxy served TLS.
	Authority string `json:"authority,omitempty"`
	// Hops are the proxies that spoke TLS on either side, front first.
	Hops []TLSHop `json:"hops"`
}

// CAFile is the run's CA certificate's file name in the report directory.
const CAFile = "ca.pem"

// TLSHop is one proxy that spoke TLS.
type TLSHop struct {
	// Hop names the proxy: "front", or "dependency:NAME".
	Hop string `json:"hop"`
	// Terminated says the proxy served TLS to its caller with a leaf of the
	// run's authority: the caller's traffic was decrypted, faulted and
	// journaled, then sent on.
	Terminated bool `json:"terminated"`
	// Upstream says how the proxy verified the TLS it spoke to what it
	// forwards to: "system roots", "CA file PATH" or UpstreamInsecure;
	// empty = plain HTTP onward, or a stand-in.
	Upstream string `json:"upstream,omitempty"`
	// StandIn says the proxy answered itself: nothing went onward.
	StandIn bool `json:"stand_in,omitempty"`
}

// UpstreamInsecure is TLSHop.Upstream for TLS spoken onward unverified.
const UpstreamInsecure = "insecure"

// Describe is the hop in words, as every format prints it, e.g.
// "dependency:payments: TLS terminated with the run's CA; upstream TLS
// verified by system roots".
func (h TLSHop) Describe() string {
	in := "plain HTTP in"
	if h.Terminated {
		in = "TLS terminated with the run's CA"
	}
	out := "plain HTTP onward"
	switch h.Upstream {
	case "":
		if h.StandIn {
			out = "answered by the stand-in"
		}
	case UpstreamInsecure:
		out = "upstream TLS not verified (insecure)"
	default:
		out = "upstream TLS verified by " + h.Upstream
	}
	return h.Hop + ": " + in + "; " + out
}

// tlsLines are the report's TLS lines, one per hop after the authority's,
// as every format prints them; none for a plain HTTP run.
func tlsLines(r *Report) []string {
	if r.TLS == nil {
		return nil
	}
	var out []string
	if r.TLS.Authority != "" {
		out = append(out, "TLS intercepted with the run's own CA ("+CAFile+", SHA-256 "+r.TLS.Authority+")")
	}
	for _, h := range r.TLS.Hops {
		out = append(out, h.Describe())
	}
	return out
}

// consoleTLS writes the TLS lines.
func consoleTLS(w io.Writer, r *Report) {
	for i, l := range tlsLines(r) {
		head := "tls: "
		if i > 0 {
			head = "  "
		}
		wrap(w, head, "    ", l, consoleWidth)
	}
}

// mdTLS writes the TLS lines as a list.
func mdTLS(w io.Writer, r *Report) {
	lines := tlsLines(r)
	if len(lines) == 0 {
		return
	}
	fmt.Fprintln(w, "TLS:")
	for _, l := range lines {
		fmt.Fprintf(w, "- %s\n", mdText(l))
	}
	fmt.Fprintln(w)
}
