package load

import (
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// noReplay is a RoundTripper that makes net/http unable to replay a request
// by itself. net/http's Transport silently re-sends a request when a reused
// connection fails after the request was written, if the request counts as
// replayable: a rewindable body (GetBody set, as for any bytes.Reader body)
// or no body, and an idempotent method or an Idempotency-Key (or
// X-Idempotency-Key) header. For load against an effectful endpoint such a
// replay is an attempt nobody scheduled or counted, so a non-idempotent
// request carrying one of those headers loses GetBody, and one without a body
// gets a one-shot empty body (sent chunked, as net/http cannot know its length).
type noReplay struct{ base http.RoundTripper }

var _ http.RoundTripper = noReplay{}

// RoundTrip sends r once through the base transport.
func (t noReplay) RoundTrip(r *http.Request) (*http.Response, error) {
	switch r.Method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return t.base.RoundTrip(r)
	}
	if r.Header.Get("Idempotency-Key") == "" && r.Header.Get("X-Idempotency-Key") == "" {
		return t.base.RoundTrip(r) // not replayable for net/http in the first place
	}
	r2 := r.Clone(r.Context()) // a RoundTripper must not modify its request
	r2.GetBody = nil
	if r2.Body == nil || r2.Body == http.NoBody {
		r2.Body = io.NopCloser(strings.NewReader(""))
		r2.ContentLength = 0
	}
	return t.base.RoundTrip(r2)
}

// newClient is the client of one attack: no environment proxy, no
// redirects followed (a 3xx is an answer to report), and no hidden replays.
func newClient(timeout time.Duration, maxConns int) *http.Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         dialer.DialContext,
		MaxIdleConnsPerHost: maxConns,
		IdleConnTimeout:     30 * time.Second,
	}
	return &http.Client{
		Transport:     noReplay{tr},
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
