package faults

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// headView is what a handler learns of a request head: the fields the lean
// path must agree on with net/http's server whenever it serves a request.
type headView struct {
	Method, RequestURI, Host, Path, RawQuery string
	Header                                   http.Header
	ContentLength                            int64
	Close                                    bool
}

// viewConn carries a handler's view of its one request back to the fuzzer.
type viewConn struct {
	net.Conn
	got chan headView
}

type viewKey struct{}

// headServer is one net/http server per fuzzing process, fed in-memory
// connections, whose handler reports the request head it was given.
var headServer = sync.OnceValue(func() *memNet {
	mn := newMemNet()
	srv := &http.Server{
		MaxHeaderBytes: 64 << 10,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, viewKey{}, c.(*viewConn))
		},
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			vc := r.Context().Value(viewKey{}).(*viewConn)
			vc.got <- headView{r.Method, r.RequestURI, r.Host, r.URL.Path, r.URL.RawQuery, r.Header.Clone(), r.ContentLength, r.Close}
		}),
	}
	go func() { _ = srv.Serve(mn) }()
	return mn
})

// netHTTPHead feeds head to net/http's server and returns the view its
// handler got, or ok false if the server refused the head.
func netHTTPHead(t *testing.T, head []byte) (v headView, ok bool) {
	t.Helper()
	client, server := net.Pipe()
	defer client.Close()
	vc := &viewConn{Conn: server, got: make(chan headView, 1)}
	select {
	case headServer().conns <- vc:
	case <-time.After(10 * time.Second):
		t.Fatal("the net/http server accepts nothing")
	}
	go func() { _, _ = client.Write(head) }()
	refused := make(chan struct{})
	go func() {
		// An answer before the handler ran is a refusal (400, 431, 505...).
		if _, err := http.ReadResponse(bufio.NewReader(client), nil); err == nil {
			close(refused)
		}
	}()
	select {
	case v := <-vc.got:
		return v, true
	case <-refused:
		// The handler's own 200 also reads as an answer: a head is refused
		// only if the handler never saw it (both cases race to this select).
		select {
		case v := <-vc.got:
			return v, true
		default:
			return headView{}, false
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("net/http neither served nor refused %q", head)
		return headView{}, false
	}
}

// leanHeadView is the view the lean path's parse gives of the same head, as
// net/http would present it to a handler.
func leanHeadView(h *reqHead) headView {
	v := headView{Method: string(h.method), RequestURI: string(h.target), Header: http.Header{}, Close: h.close}
	for _, f := range h.fields {
		if equalFold(f.name, "Host") {
			v.Host = string(f.value)
			continue
		}
		k := textproto.CanonicalMIMEHeaderKey(string(f.name))
		v.Header[k] = append(v.Header[k], string(f.value))
	}
	v.Path, v.RawQuery = h.pathQuery()
	v.ContentLength = max(h.contentLength, 0)
	return v
}

// requestHeadSeeds are heads from the lean differential test and the issue,
// one of each shape the lean path serves or hands over.
var requestHeadSeeds = []string{
	"GET /a?x=1 HTTP/1.1\r\nHost: h\r\nIdempotency-Key: k1\r\nX-Attempt: 1\r\nX-Attempt: 2\r\n\r\n",
	"POST /v1/a%20b HTTP/1.1\r\nHost: h\r\nContent-Length: 7\r\nContent-Type: application/json\r\n\r\n",
	"GET /a%2Fb/c HTTP/1.1\r\nHost: [::1]:80\r\nConnection: close, X-Drop\r\nX-Drop: 1\r\n\r\n",
	"POST /smuggle HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n",
	"POST /two HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
	"GET /fold HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n  2\r\n\r\n",
	"GET /a%zz HTTP/1.1\r\nHost: h\r\n\r\n",
	"get / HTTP/1.1\r\nhost:\r\ncontent-length: 007\r\nX-T: a\tb\x80\r\n\r\n",
}

// FuzzLean_RequestHeadMatchesNetHTTP requires that whenever the lean path
// serves a request head itself, net/http's server would have served it too
// and seen the same method, target, Host, fields, body length and
// connection close, and that the head the lean path sends upstream frames
// the same body. Handing a head over is always allowed.
func FuzzLean_RequestHeadMatchesNetHTTP(f *testing.F) {
	for _, s := range requestHeadSeeds {
		f.Add([]byte(s))
	}
	up := &url.URL{Scheme: "http", Host: "up:8080", Path: "/base"}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || b[0] < 'A' || b[0] > 'Z' { // readHead hands these over unparsed
			return
		}
		n := headEnd(b)
		if n < 0 || n > leanBufSize {
			return
		}
		var h reqHead
		if why := parseRequestHead(b[:n], &h, 1<<20); why != "" {
			return
		}
		lean := leanHeadView(&h)
		got, ok := netHTTPHead(t, b[:n])
		if !ok {
			t.Fatalf("the lean path serves a head net/http refuses: %q", b[:n])
		}
		if !reflect.DeepEqual(lean, got) {
			t.Fatalf("%q\nlean path:  %+v\nnet/http:   %+v", b[:n], lean, got)
		}
		out := h.appendOutbound(nil, up)
		r, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(out)))
		switch {
		case err != nil:
			t.Fatalf("outbound head %q does not parse: %v", out, err)
		case r.ContentLength != got.ContentLength || len(r.TransferEncoding) > 0 || r.Method != got.Method:
			t.Fatalf("outbound head %q frames %d bytes (%v) for %s; the client sent %d", out, r.ContentLength, r.TransferEncoding, r.Method, got.ContentLength)
		case r.Host != up.Host || !strings.HasPrefix(r.RequestURI, "/base/"):
			t.Fatalf("outbound head %q is not for %s", out, up)
		}
	})
}

// bytesConn is an upstream connection that answers with fixed bytes.
type bytesConn struct {
	net.Conn
	r io.Reader
}

func (c bytesConn) Read(b []byte) (int, error)    { return c.r.Read(b) }
func (bytesConn) SetReadDeadline(time.Time) error { return nil }

// netHTTPResponse reads a final response head as net/http's Transport does,
// skipping up to five interim answers.
func netHTTPResponse(b []byte) (*http.Response, error) {
	br := bufio.NewReader(bytes.NewReader(b))
	for interim := 0; ; interim++ {
		resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodGet})
		switch {
		case err != nil:
			return nil, err
		case resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols:
			return resp, nil
		case interim == maxInterim:
			return nil, errors.New("too many interim answers")
		}
	}
}

// responseHeadSeeds are upstream answers of each framing the lean path
// relays or refuses.
var responseHeadSeeds = []string{
	"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nRetry-After: 7\r\n\r\nhello",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
	"HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 503 Service Unavailable\r\nRetry-After: 3\r\nContent-Length: 4\r\n\r\nbusy",
	"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 204 No Content\r\nConnection: close, X-Private\r\nX-Private: p\r\n\r\n",
	"HTTP/1.1 200 OK\nContent-Length: 2\nX-A: 1\n\n",
	"HTTP/1.1 200 OK\r\nX-Framing: none\r\n\r\nuntil close",
	"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n",
}

// FuzzLean_ResponseHeadMatchesNetHTTP requires that whenever the lean path
// takes an upstream response head, net/http's Transport takes it too, with
// the same status, body framing, connection close and fields.
func FuzzLean_ResponseHeadMatchesNetHTTP(f *testing.F) {
	for _, s := range responseHeadSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 {
			return
		}
		c := bytesConn{r: bytes.NewReader(b)}
		uc := &upConn{c: c, br: bufio.NewReader(c)}
		lc := &leanConn{p: &Proxy{}}
		if err := lc.readResponseHead(uc); err != nil {
			return // a 502 on either path
		}
		r := &lc.resp
		if r.http10 && r.chunked {
			// Known divergence, kept: RFC 9112 §6.1 calls this framing faulty
			// and asks the recipient to close after the message. The lean
			// path decodes the chunks and closes; net/http ignores
			// Transfer-Encoding on HTTP/1.0, relays the raw bytes until close
			// or Content-Length, and with keep-alive even reuses the
			// connection. Closing is the half both must share.
			if !r.close {
				t.Fatalf("the lean path keeps a connection whose HTTP/1.0 answer was chunked: %q", b)
			}
			return
		}
		resp, err := netHTTPResponse(b)
		if err != nil {
			t.Fatalf("the lean path takes a response head net/http refuses (%v): %q", err, b)
		}
		type view struct {
			Status  int
			Chunked bool
			Length  int64
			Close   bool
			Header  http.Header
		}
		lean := view{Status: r.status, Chunked: r.chunked, Length: r.length, Header: http.Header{},
			Close: r.close || (!r.bodiless(false) && r.length < 0 && !r.chunked)}
		for _, f := range r.fields { // the fields each path relays
			if !equalFold(f.name, "Content-Length") && !isHop(f.name, r.connTokens) {
				k := textproto.CanonicalMIMEHeaderKey(string(f.name))
				lean.Header[k] = append(lean.Header[k], string(f.value))
			}
		}
		if r.bodiless(false) {
			lean.Length = max(lean.Length, 0) // net/http: no body is a length of 0
		}
		got := view{Status: resp.StatusCode, Chunked: len(resp.TransferEncoding) > 0, Length: resp.ContentLength,
			Close: resp.Close, Header: resp.Header}
		delete(got.Header, "Content-Length")
		removeHopHeaders(got.Header)
		if r.close {
			// Known divergence, on net/http's side: its Transport deletes a
			// Connection field that says close, with the other fields it
			// names hop-by-hop, which the net/http path then relays. The
			// lean path drops them, as RFC 9110 §7.6.1 requires.
			for _, tok := range r.connTokens {
				got.Header.Del(string(tok))
			}
		}
		if !reflect.DeepEqual(lean, got) {
			t.Fatalf("%q\nlean path:  %+v\nnet/http:   %+v", b, lean, got)
		}
	})
}
