package faults

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// bothPaths runs f against a lean proxy and one serving everything through
// net/http, both in front of up.
func bothPaths(t *testing.T, up *upstream, f func(t *testing.T, p *Proxy)) {
	t.Helper()
	for _, path := range []string{"lean", "net/http"} {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			f(t, startProxy(t, WithUpstream(up.url(t)), func(p *Proxy) { p.noLean = path != "lean" }))
		})
	}
}

// TestProxy_MalformedChunkedBody requires a 400 for a request whose chunked
// framing is broken, journaled as the client's error, and nothing upstream.
func TestProxy_MalformedChunkedBody(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, nil)
	bothPaths(t, up, func(t *testing.T, p *Proxy) {
		for _, body := range []string{
			"zz\r\nabc\r\n0\r\n\r\n",            // not a chunk size
			"3\r\nabcdef\r\n0\r\n\r\n",          // chunk longer than its size
			"ffffffffffffffffffff\r\n",          // size beyond int64
			"3\r\nabc\r\n0\r\nno colon\r\n\r\n", // malformed trailer
		} {
			before := p.Journal().LastSeq()
			resp, _ := rawExchange(t, hostOf(p), "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"+body, "POST")
			if resp == nil || resp.StatusCode != http.StatusBadRequest {
				t.Errorf("%q: answer %v; want 400", body, resp)
			}
			e := await(t, p, int(before)+1)[before]
			if e.Outcome != OutcomeRejected || e.Status != http.StatusBadRequest || e.UpstreamCalls != 0 ||
				!strings.Contains(e.Error, "chunked") {
				t.Errorf("%q: journal %+v; want a rejected 400 blaming the chunked body", body, e)
			}
		}
		if n := up.calls.Load(); n != 0 {
			t.Errorf("upstream called %d times", n)
		}
	})
}

// TestProxy_ClosesAfterLengthAndChunked requires the connection closed after
// answering a request with both Content-Length and Transfer-Encoding (RFC
// 9112 §6.1), while the request still reaches the upstream well framed.
func TestProxy_ClosesAfterLengthAndChunked(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, nil)
	bothPaths(t, up, func(t *testing.T, p *Proxy) {
		c := sendRaw(t, p, "POST /smuggle HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n")
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, &http.Request{Method: "POST"})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || string(b) != "echo:hi" || !resp.Close {
			t.Errorf("answer %d %q close=%v; want 200 echo:hi and Connection: close", resp.StatusCode, b, resp.Close)
		}
		if _, err := br.ReadByte(); err != io.EOF {
			t.Errorf("connection left open: %v", err)
		}
	})
}
