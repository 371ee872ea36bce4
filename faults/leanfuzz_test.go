package faults

import (
	"bufio"
	"bytes"
	"context"
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
		return headView{}, false
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
