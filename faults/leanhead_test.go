package faults

import (
	"maps"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// crlfHead joins lines with CRLF and ends the head with the empty line.
func crlfHead(lines ...string) string { return strings.Join(lines, "\r\n") + "\r\n\r\n" }

// byteStrings converts parsed slices for comparison; nil and empty compare
// equal under slices.Equal.
func byteStrings(bs [][]byte) []string {
	var out []string
	for _, b := range bs {
		out = append(out, string(b))
	}
	return out
}

func fieldStrings(fs []field) []string {
	var out []string
	for _, f := range fs {
		out = append(out, string(f.name)+"|"+string(f.value))
	}
	return out
}

// mustParseRequest parses a head the lean path must accept.
func mustParseRequest(t *testing.T, head string) *reqHead {
	t.Helper()
	h := &reqHead{}
	if why := parseRequestHead([]byte(head), h, 1<<20); why != "" {
		t.Fatalf("parseRequestHead(%q) = %q, want it accepted", head, why)
	}
	return h
}

func mustParseURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestParseRequestHead(t *testing.T) {
	const maxBody = 100
	type want struct {
		reason  string
		method  string
		target  string
		cl      int64
		close   bool
		tokens  []string
		nfields int
	}
	// ok builds the expectation for an accepted head.
	ok := func(method, target string, cl int64, nfields int) want {
		return want{method: method, target: target, cl: cl, nfields: nfields}
	}
	rejected := func(reason string) want { return want{reason: reason} }

	tests := []struct {
		name string
		head string
		want want
	}{
		// Accepted heads.
		{"plain GET", crlfHead("GET / HTTP/1.1", "Host: example.com"), ok("GET", "/", -1, 1)},
		{"GET with several fields", crlfHead("GET /a/b HTTP/1.1", "Host: x", "Accept: */*", "User-Agent: t"), ok("GET", "/a/b", -1, 3)},
		{"POST with Content-Length", crlfHead("POST /submit HTTP/1.1", "Host: x", "Content-Length: 42"), ok("POST", "/submit", 42, 2)},
		{"Content-Length zero", crlfHead("PUT /r HTTP/1.1", "Host: x", "Content-Length: 0"), ok("PUT", "/r", 0, 2)},
		{"Content-Length equal to the limit", crlfHead("POST / HTTP/1.1", "Host: x", "Content-Length: 100"), ok("POST", "/", 100, 2)},
		{"Content-Length with leading zeros", crlfHead("POST / HTTP/1.1", "Host: x", "Content-Length: 007"), ok("POST", "/", 7, 2)},
		{"Content-Length with surrounding whitespace", crlfHead("POST / HTTP/1.1", "Host: x", "Content-Length: \t 9 \t"), ok("POST", "/", 9, 2)},
		{"lowercase field names", crlfHead("POST / HTTP/1.1", "host: x", "content-length: 3"), ok("POST", "/", 3, 2)},
		{"Host with port", crlfHead("GET / HTTP/1.1", "Host: example.com:8080"), ok("GET", "/", -1, 1)},
		{"Host IPv6 literal", crlfHead("GET / HTTP/1.1", "Host: [::1]:8080"), ok("GET", "/", -1, 1)},
		{"empty Host value", crlfHead("GET / HTTP/1.1", "Host:"), ok("GET", "/", -1, 1)},
		{"empty header value", crlfHead("GET / HTTP/1.1", "Host: x", "X-Empty:"), ok("GET", "/", -1, 2)},
		{"whitespace-only header value", crlfHead("GET / HTTP/1.1", "Host: x", "X-Empty:  \t "), ok("GET", "/", -1, 2)},
		{"obs-text in a value", crlfHead("GET / HTTP/1.1", "Host: x", "X-Name: caf\x80\xff"), ok("GET", "/", -1, 2)},
		{"tab inside a value", crlfHead("GET / HTTP/1.1", "Host: x", "X-Tab: a\tb"), ok("GET", "/", -1, 2)},
		{"target with %20 and a query", crlfHead("GET /a%20b/c?x=1&y=%2F HTTP/1.1", "Host: x"), ok("GET", "/a%20b/c?x=1&y=%2F", -1, 1)},
		{"lowercase method is a token", crlfHead("get / HTTP/1.1", "Host: x"), ok("get", "/", -1, 1)},
		{"extension method", crlfHead("PURGE /cache HTTP/1.1", "Host: x"), ok("PURGE", "/cache", -1, 1)},
		{"Connection close", crlfHead("GET / HTTP/1.1", "Host: x", "Connection: close"),
			want{method: "GET", target: "/", cl: -1, close: true, nfields: 2}},
		{"Connection CLOSE any case", crlfHead("GET / HTTP/1.1", "Host: x", "connection: CLOSE"),
			want{method: "GET", target: "/", cl: -1, close: true, nfields: 2}},
		// keep-alive is a connection option like any other: keeping it among
		// the tokens only makes a Keep-Alive field hop-by-hop, which it is.
		{"Connection close, keep-alive, X-Foo", crlfHead("GET / HTTP/1.1", "Host: x", "Connection: close, keep-alive, X-Foo"),
			want{method: "GET", target: "/", cl: -1, close: true, tokens: []string{"keep-alive", "X-Foo"}, nfields: 2}},
		{"Connection keep-alive", crlfHead("GET / HTTP/1.1", "Host: x", "Connection: keep-alive"),
			want{method: "GET", target: "/", cl: -1, tokens: []string{"keep-alive"}, nfields: 2}},
		{"Connection tokens trimmed, empty ones skipped", crlfHead("GET / HTTP/1.1", "Host: x", "Connection: , X-A ,,\tx-b\t"),
			want{method: "GET", target: "/", cl: -1, tokens: []string{"X-A", "x-b"}, nfields: 2}},
		{"two Connection fields", crlfHead("GET / HTTP/1.1", "Host: x", "Connection: X-A", "Connection: close, X-B"),
			want{method: "GET", target: "/", cl: -1, close: true, tokens: []string{"X-A", "X-B"}, nfields: 3}},

		// Content-Length.
		{"Content-Length over the limit", crlfHead("POST / HTTP/1.1", "Host: x", "Content-Length: 101"), rejected("body over the limit")},
		{"Content-Length +5", crlfHead("POST / HTTP/1.1", "Host: x", "Content-Length: +5"), rejected("malformed Content-Length")},
		{"Content-Length abc", crlfHead("POST / HTTP/1.1", "Host: x", "Content-Length: abc"), rejected("malformed Content-Length")},
		{"Content-Length -1", crlfHead("POST / HTTP/1.1", "Host: x", "Content-Length: -1"), rejected("malformed Content-Length")},
		{"Content-Length empty", crlfHead("POST / HTTP/1.1", "Host: x", "Content-Length:"), rejected("malformed Content-Length")},
		{"Content-Length list", crlfHead("POST / HTTP/1.1", "Host: x", "Content-Length: 5, 5"), rejected("malformed Content-Length")},
		{"Content-Length hex", crlfHead("POST / HTTP/1.1", "Host: x", "Content-Length: 0x5"), rejected("malformed Content-Length")},
		{"Content-Length beyond int64", crlfHead("POST / HTTP/1.1", "Host: x", "Content-Length: 99999999999999999999"), rejected("malformed Content-Length")},
		{"two equal Content-Length fields", crlfHead("POST / HTTP/1.1", "Host: x", "Content-Length: 5", "Content-Length: 5"), rejected("several Content-Length fields")},
		{"two different Content-Length fields", crlfHead("POST / HTTP/1.1", "Host: x", "Content-Length: 5", "content-length: 6"), rejected("several Content-Length fields")},

		// Framing and protocol switches net/http must handle.
		{"Transfer-Encoding chunked", crlfHead("POST / HTTP/1.1", "Host: x", "Transfer-Encoding: chunked"), rejected("Transfer-Encoding")},
		{"Transfer-Encoding gzip", crlfHead("POST / HTTP/1.1", "Host: x", "Transfer-Encoding: gzip"), rejected("Transfer-Encoding")},
		{"Transfer-Encoding lowercase identity", crlfHead("POST / HTTP/1.1", "Host: x", "transfer-encoding: identity"), rejected("Transfer-Encoding")},
		{"Transfer-Encoding with Content-Length", crlfHead("POST / HTTP/1.1", "Host: x", "Content-Length: 5", "Transfer-Encoding: chunked"), rejected("Transfer-Encoding")},
		{"Expect", crlfHead("POST / HTTP/1.1", "Host: x", "Content-Length: 5", "Expect: 100-continue"), rejected("Expect")},
		{"Upgrade field", crlfHead("GET / HTTP/1.1", "Host: x", "Upgrade: websocket"), rejected("Upgrade")},
		{"Connection upgrade", crlfHead("GET / HTTP/1.1", "Host: x", "Connection: upgrade"), rejected("Upgrade")},
		{"Connection keep-alive, Upgrade", crlfHead("GET / HTTP/1.1", "Host: x", "Connection: keep-alive, Upgrade"), rejected("Upgrade")},

		// Host.
		{"missing Host", crlfHead("GET / HTTP/1.1", "Accept: */*"), rejected("not exactly one Host")},
		{"no fields at all", crlfHead("GET / HTTP/1.1"), rejected("not exactly one Host")},
		{"two Host fields", crlfHead("GET / HTTP/1.1", "Host: a", "Host: a"), rejected("not exactly one Host")},
		{"Host with a space", crlfHead("GET / HTTP/1.1", "Host: a b"), rejected("malformed Host")},
		{"Host with a slash", crlfHead("GET / HTTP/1.1", "Host: a/b"), rejected("malformed Host")},
		{"Host with userinfo", crlfHead("GET / HTTP/1.1", "Host: u@a"), rejected("malformed Host")},
		{"Host with a # (fuzz: net/http refuses it)", crlfHead("GET / HTTP/1.1", "Host: #00"), rejected("malformed Host")},

		// Request line.
		{"absolute-form target", crlfHead("GET http://x/ HTTP/1.1", "Host: x"), rejected("not an origin-form target")},
		{"asterisk target", crlfHead("GET * HTTP/1.1", "Host: x"), rejected("not an origin-form target")},
		{"OPTIONS asterisk", crlfHead("OPTIONS * HTTP/1.1", "Host: x"), rejected("not an origin-form target")},
		{"authority-form CONNECT", crlfHead("CONNECT x:443 HTTP/1.1", "Host: x:443"), rejected("not an origin-form target")},
		{"CONNECT with an origin-form target", crlfHead("CONNECT /x HTTP/1.1", "Host: x"), rejected("CONNECT")},
		{"control character in the target", crlfHead("GET /a\x01b HTTP/1.1", "Host: x"), rejected("not an origin-form target")},
		{"non-ASCII in the target", crlfHead("GET /caf\xc3\xa9 HTTP/1.1", "Host: x"), rejected("not an origin-form target")},
		{"double space after the method", crlfHead("GET  / HTTP/1.1", "Host: x"), rejected("not an origin-form target")},
		{"no version", crlfHead("GET /", "Host: x"), rejected("not an origin-form target")},
		{"HTTP/1.0", crlfHead("GET / HTTP/1.0", "Host: x"), rejected("not HTTP/1.1")},
		{"HTTP/2.0", crlfHead("GET / HTTP/2.0", "Host: x"), rejected("not HTTP/1.1")},
		{"lowercase version", crlfHead("GET / http/1.1", "Host: x"), rejected("not HTTP/1.1")},
		{"space after the version", crlfHead("GET / HTTP/1.1 ", "Host: x"), rejected("not HTTP/1.1")},
		{"space inside the target", crlfHead("GET /a b HTTP/1.1", "Host: x"), rejected("not HTTP/1.1")},
		{"leading space", crlfHead(" GET / HTTP/1.1", "Host: x"), rejected("malformed method")},
		{"method with a separator", crlfHead("G(T / HTTP/1.1", "Host: x"), rejected("malformed method")},
		{"no space at all", crlfHead("GET", "Host: x"), rejected("malformed method")},

		// Line endings.
		{"bare LF after the request line", "GET / HTTP/1.1\nHost: x\r\n\r\n", rejected("bare LF")},
		{"bare LF after a field", "GET / HTTP/1.1\r\nHost: x\n\r\n", rejected("bare LF")},
		{"bare LF as the empty line", "GET / HTTP/1.1\r\nHost: x\r\n\n", rejected("bare LF")},
		{"LF only", "GET / HTTP/1.1\nHost: x\n\n", rejected("bare LF")},
		{"head not terminated", "GET / HTTP/1.1\r\nHost: x\r\n", rejected("bare LF")},

		// Field syntax.
		{"obs-fold with a space", crlfHead("GET / HTTP/1.1", "Host: x", "X-A: 1", " continued"), rejected("malformed header field")},
		{"obs-fold with a tab", crlfHead("GET / HTTP/1.1", "Host: x", "X-A: 1", "\tcontinued"), rejected("malformed header field")},
		{"obs-fold holding a colon", crlfHead("GET / HTTP/1.1", "Host: x", "X-A: 1", " X-B: 2"), rejected("malformed header field")},
		{"space before the colon", crlfHead("GET / HTTP/1.1", "Host : x"), rejected("malformed header field")},
		{"empty field name", crlfHead("GET / HTTP/1.1", "Host: x", ": v"), rejected("malformed header field")},
		{"no colon", crlfHead("GET / HTTP/1.1", "Host: x", "NoColon"), rejected("malformed header field")},
		{"NUL in a field name", crlfHead("GET / HTTP/1.1", "Host: x", "X-\x00: v"), rejected("malformed header field")},
		{"NUL in a value", crlfHead("GET / HTTP/1.1", "Host: x", "X-A: a\x00b"), rejected("control character in a header value")},
		{"CR inside a value", crlfHead("GET / HTTP/1.1", "Host: x", "X-A: a\rb"), rejected("control character in a header value")},
		{"CR ending a value", crlfHead("GET / HTTP/1.1", "Host: x", "X-A: a\r"), rejected("control character in a header value")},
		{"DEL in a value", crlfHead("GET / HTTP/1.1", "Host: x", "X-A: a\x7fb"), rejected("control character in a header value")},
		{"control character in the Host value", crlfHead("GET / HTTP/1.1", "Host: a\x01"), rejected("control character in a header value")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var h reqHead
			got := parseRequestHead([]byte(tc.head), &h, maxBody)
			if got != tc.want.reason {
				t.Fatalf("reason = %q, want %q", got, tc.want.reason)
			}
			if got != "" {
				return
			}
			if h.size != len(tc.head) {
				t.Errorf("size = %d, want %d", h.size, len(tc.head))
			}
			if string(h.method) != tc.want.method {
				t.Errorf("method = %q, want %q", h.method, tc.want.method)
			}
			if string(h.target) != tc.want.target {
				t.Errorf("target = %q, want %q", h.target, tc.want.target)
			}
			if h.contentLength != tc.want.cl {
				t.Errorf("contentLength = %d, want %d", h.contentLength, tc.want.cl)
			}
			if h.close != tc.want.close {
				t.Errorf("close = %v, want %v", h.close, tc.want.close)
			}
			if tokens := byteStrings(h.connTokens); !slices.Equal(tokens, tc.want.tokens) {
				t.Errorf("connTokens = %q, want %q", tokens, tc.want.tokens)
			}
			if len(h.fields) != tc.want.nfields {
				t.Errorf("len(fields) = %d, want %d: %q", len(h.fields), tc.want.nfields, fieldStrings(h.fields))
			}
		})
	}

	t.Run("fields keep order and spelling, values trimmed", func(t *testing.T) {
		h := mustParseRequest(t, crlfHead("GET / HTTP/1.1", "x-lower: a", "Host:\t x ", "X-Empty:", "X-Mixed-CASE:  b c  "))
		want := []string{"x-lower|a", "Host|x", "X-Empty|", "X-Mixed-CASE|b c"}
		if got := fieldStrings(h.fields); !slices.Equal(got, want) {
			t.Errorf("fields = %q, want %q", got, want)
		}
	})

	t.Run("reused head is reset", func(t *testing.T) {
		var h reqHead
		first := crlfHead("POST /a HTTP/1.1", "Host: x", "Content-Length: 5", "Connection: close, X-A", "X-B: 1")
		if why := parseRequestHead([]byte(first), &h, maxBody); why != "" {
			t.Fatalf("first head: %q", why)
		}
		second := crlfHead("GET /b HTTP/1.1", "Host: y")
		if why := parseRequestHead([]byte(second), &h, maxBody); why != "" {
			t.Fatalf("second head: %q", why)
		}
		if string(h.method) != "GET" || string(h.target) != "/b" || h.size != len(second) {
			t.Errorf("method, target, size = %q, %q, %d", h.method, h.target, h.size)
		}
		if h.contentLength != -1 || h.close || len(h.connTokens) != 0 {
			t.Errorf("contentLength, close, connTokens = %d, %v, %q; want -1, false, none", h.contentLength, h.close, h.connTokens)
		}
		if got := fieldStrings(h.fields); !slices.Equal(got, []string{"Host|y"}) {
			t.Errorf("fields = %q", got)
		}
	})
}

func TestReqHead_pathQuery(t *testing.T) {
	tests := []struct {
		name, target, path, query string
	}{
		{"root", "/", "/", ""},
		{"plain path", "/a/b", "/a/b", ""},
		{"escaped space", "/a%20b", "/a b", ""},
		{"escaped slash is unescaped", "/a%2Fb", "/a/b", ""},
		{"UTF-8 escape", "/caf%C3%A9", "/café", ""},
		{"plus stays a plus", "/a+b", "/a+b", ""},
		{"query kept raw", "/x?a=1&b=%20", "/x", "a=1&b=%20"},
		{"escaped path and query", "/a%20b?q=%2F", "/a b", "q=%2F"},
		{"empty query", "/x?", "/x", ""},
		{"second question mark belongs to the query", "/x?a?b", "/x", "a?b"},
		{"invalid escape kept raw", "/a%zz", "/a%zz", ""},
		{"invalid escape with a query", "/a%zz?q=%zz", "/a%zz", "q=%zz"},
		{"truncated escape kept raw", "/a%2", "/a%2", ""},
		{"lone percent kept raw", "/%", "/%", ""},
		{"escape in the query only", "/x?%zz", "/x", "%zz"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := reqHead{target: []byte(tc.target)}
			path, query := h.pathQuery()
			if path != tc.path || query != tc.query {
				t.Errorf("pathQuery(%q) = %q, %q; want %q, %q", tc.target, path, query, tc.path, tc.query)
			}
		})
	}
}

func TestReqHead_appendOutbound(t *testing.T) {
	tests := []struct {
		name     string
		head     string
		upstream string
		want     string
	}{
		{"root to a bare upstream", crlfHead("GET / HTTP/1.1", "Host: client.example"), "http://up:81",
			"GET / HTTP/1.1\r\nHost: up:81\r\n\r\n"},
		{"path and query to a bare upstream", crlfHead("GET /x/y?a=1 HTTP/1.1", "Host: c"), "http://up:81",
			"GET /x/y?a=1 HTTP/1.1\r\nHost: up:81\r\n\r\n"},
		{"empty query kept", crlfHead("GET /x? HTTP/1.1", "Host: c"), "http://up:81",
			"GET /x? HTTP/1.1\r\nHost: up:81\r\n\r\n"},
		{"upstream with a trailing-slash root", crlfHead("GET /x HTTP/1.1", "Host: c"), "http://up:81/",
			"GET /x HTTP/1.1\r\nHost: up:81\r\n\r\n"},
		{"base path", crlfHead("GET /x HTTP/1.1", "Host: c"), "http://up:81/base",
			"GET /base/x HTTP/1.1\r\nHost: up:81\r\n\r\n"},
		{"base path, root target", crlfHead("GET / HTTP/1.1", "Host: c"), "http://up:81/base",
			"GET /base/ HTTP/1.1\r\nHost: up:81\r\n\r\n"},
		{"base path with a trailing slash", crlfHead("GET /x HTTP/1.1", "Host: c"), "http://up:81/base/",
			"GET /base/x HTTP/1.1\r\nHost: up:81\r\n\r\n"},
		{"base path with a trailing slash, root target", crlfHead("GET / HTTP/1.1", "Host: c"), "http://up:81/base/",
			"GET /base/ HTTP/1.1\r\nHost: up:81\r\n\r\n"},
		{"base path and client query", crlfHead("GET /x?a=1 HTTP/1.1", "Host: c"), "http://up:81/base/",
			"GET /base/x?a=1 HTTP/1.1\r\nHost: up:81\r\n\r\n"},
		{"escaping kept on both sides", crlfHead("GET /x%2Fy%20z HTTP/1.1", "Host: c"), "http://up:81/a%2Fb",
			"GET /a%2Fb/x%2Fy%20z HTTP/1.1\r\nHost: up:81\r\n\r\n"},
		{"upstream query only", crlfHead("GET /x HTTP/1.1", "Host: c"), "http://up:81/base?k=v",
			"GET /base/x?k=v HTTP/1.1\r\nHost: up:81\r\n\r\n"},
		{"upstream and client queries merged", crlfHead("GET /x?a=1&b=2 HTTP/1.1", "Host: c"), "http://up:81/base?k=v",
			"GET /base/x?k=v&a=1&b=2 HTTP/1.1\r\nHost: up:81\r\n\r\n"},
		{"upstream query and an empty client query", crlfHead("GET /x? HTTP/1.1", "Host: c"), "http://up:81/base?k=v",
			"GET /base/x?k=v HTTP/1.1\r\nHost: up:81\r\n\r\n"},
		{"upstream query on a bare upstream", crlfHead("GET /x?a=1 HTTP/1.1", "Host: c"), "http://up:81?k=v",
			"GET /x?k=v&a=1 HTTP/1.1\r\nHost: up:81\r\n\r\n"},
		{"Host replaced wherever it was", crlfHead("GET / HTTP/1.1", "Accept: */*", "host: client.example", "X-After: 1"), "http://up:81",
			"GET / HTTP/1.1\r\nHost: up:81\r\nAccept: */*\r\nX-After: 1\r\n\r\n"},
		{"hop-by-hop fields dropped", crlfHead("GET / HTTP/1.1",
			"Host: c",
			"Accept: */*",
			"Connection: keep-alive",
			"Keep-Alive: timeout=5",
			"Proxy-Connection: keep-alive",
			"X-Keep: 1",
			"TE: trailers",
			"Trailer: X-Sum",
			"Proxy-Authorization: Basic Zm9vOmJhcg==",
			"x-lower-spelling: v"), "http://up:81",
			"GET / HTTP/1.1\r\nHost: up:81\r\nAccept: */*\r\nX-Keep: 1\r\nx-lower-spelling: v\r\n\r\n"},
		{"fields named in Connection dropped", crlfHead("GET / HTTP/1.1",
			"Host: c",
			"Connection: close, X-Drop, x-other",
			"X-Drop: 1",
			"X-Keep: 2",
			"x-drop: 3",
			"X-Other: 4",
			"X-Dropped: 5"), "http://up:81",
			"GET / HTTP/1.1\r\nHost: up:81\r\nX-Keep: 2\r\nX-Dropped: 5\r\n\r\n"},
		{"values written trimmed", crlfHead("GET / HTTP/1.1", "Host: c", "X-A:\t  v w  "), "http://up:81",
			"GET / HTTP/1.1\r\nHost: up:81\r\nX-A: v w\r\n\r\n"},
		{"POST without Content-Length gets one", crlfHead("POST /p HTTP/1.1", "Host: c", "X-A: 1"), "http://up:81",
			"POST /p HTTP/1.1\r\nHost: up:81\r\nX-A: 1\r\nContent-Length: 0\r\n\r\n"},
		{"PUT without Content-Length gets one", crlfHead("PUT /p HTTP/1.1", "Host: c"), "http://up:81",
			"PUT /p HTTP/1.1\r\nHost: up:81\r\nContent-Length: 0\r\n\r\n"},
		{"PATCH without Content-Length gets one", crlfHead("PATCH /p HTTP/1.1", "Host: c"), "http://up:81",
			"PATCH /p HTTP/1.1\r\nHost: up:81\r\nContent-Length: 0\r\n\r\n"},
		{"GET without Content-Length gets none", crlfHead("GET /p HTTP/1.1", "Host: c"), "http://up:81",
			"GET /p HTTP/1.1\r\nHost: up:81\r\n\r\n"},
		{"DELETE without Content-Length gets none", crlfHead("DELETE /p HTTP/1.1", "Host: c"), "http://up:81",
			"DELETE /p HTTP/1.1\r\nHost: up:81\r\n\r\n"},
		{"HEAD without Content-Length gets none", crlfHead("HEAD /p HTTP/1.1", "Host: c"), "http://up:81",
			"HEAD /p HTTP/1.1\r\nHost: up:81\r\n\r\n"},
		{"POST keeps its own Content-Length", crlfHead("POST /p HTTP/1.1", "Host: c", "content-length: 5", "X-A: 1"), "http://up:81",
			"POST /p HTTP/1.1\r\nHost: up:81\r\ncontent-length: 5\r\nX-A: 1\r\n\r\n"},
		{"POST with Content-Length 0 keeps it", crlfHead("POST /p HTTP/1.1", "Host: c", "Content-Length: 0"), "http://up:81",
			"POST /p HTTP/1.1\r\nHost: up:81\r\nContent-Length: 0\r\n\r\n"},
		{"GET with a Content-Length keeps it", crlfHead("GET /p HTTP/1.1", "Host: c", "Content-Length: 3"), "http://up:81",
			"GET /p HTTP/1.1\r\nHost: up:81\r\nContent-Length: 3\r\n\r\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := mustParseRequest(t, tc.head)
			got := string(h.appendOutbound(nil, mustParseURL(t, tc.upstream)))
			if got != tc.want {
				t.Errorf("appendOutbound =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}

	t.Run("appends to what the buffer holds", func(t *testing.T) {
		h := mustParseRequest(t, crlfHead("GET /x HTTP/1.1", "Host: c"))
		buf := make([]byte, 0, 256)
		buf = append(buf, "previous"...)
		got := string(h.appendOutbound(buf, mustParseURL(t, "http://up:81/base/")))
		if want := "previousGET /base/x HTTP/1.1\r\nHost: up:81\r\n\r\n"; got != want {
			t.Errorf("appendOutbound = %q, want %q", got, want)
		}
	})

	// Upgrade, Proxy-Authenticate, Expect and Transfer-Encoding send a
	// request to net/http before it gets here, but appendOutbound must drop
	// them all the same.
	t.Run("hop-by-hop fields the parser refuses are dropped too", func(t *testing.T) {
		h := &reqHead{
			method: []byte("GET"), target: []byte("/"), contentLength: -1,
			fields: []field{
				{[]byte("Host"), []byte("c")},
				{[]byte("Upgrade"), []byte("websocket")},
				{[]byte("X-Keep"), []byte("1")},
				{[]byte("Proxy-Authenticate"), []byte("Basic")},
				{[]byte("Expect"), []byte("100-continue")},
				{[]byte("transfer-encoding"), []byte("chunked")},
				{[]byte("Te"), []byte("trailers")},
			},
		}
		got := string(h.appendOutbound(nil, mustParseURL(t, "http://up:81")))
		if want := "GET / HTTP/1.1\r\nHost: up:81\r\nX-Keep: 1\r\n\r\n"; got != want {
			t.Errorf("appendOutbound = %q, want %q", got, want)
		}
	})

	t.Run("Connection naming Content-Length goes to net/http", func(t *testing.T) {
		// Dropping a Content-Length that Connection names would leave the
		// body that follows unframed upstream: a smuggled request.
		head := crlfHead("POST / HTTP/1.1", "Host: c", "Content-Length: 5", "Connection: Content-Length")
		var h reqHead
		if why := parseRequestHead([]byte(head), &h, 100); why == "" {
			t.Errorf("lean path accepted %q", head)
		}
	})
}

func TestParseResponseHead(t *testing.T) {
	type want struct {
		reason     string
		status     int
		statusLine string
		chunked    bool
		length     int64
		close      bool
		http10     bool
		tokens     []string
		nfields    int
	}
	ok := func(status int, statusLine string, length int64, nfields int) want {
		return want{status: status, statusLine: statusLine, length: length, nfields: nfields}
	}
	rejected := func(reason string) want { return want{reason: reason} }

	tests := []struct {
		name string
		head string
		want want
	}{
		{"200 with Content-Length", crlfHead("HTTP/1.1 200 OK", "Content-Length: 5"), ok(200, "200 OK", 5, 1)},
		{"no framing fields", crlfHead("HTTP/1.1 200 OK"), ok(200, "200 OK", -1, 0)},
		{"reason with spaces", crlfHead("HTTP/1.1 404 Not Found", "Content-Length: 0"), ok(404, "404 Not Found", 0, 1)},
		{"no reason", crlfHead("HTTP/1.1 200", "Content-Length: 2"), ok(200, "200", 2, 1)},
		{"empty reason", crlfHead("HTTP/1.1 204 "), ok(204, "204 ", -1, 0)},
		{"interim 100", crlfHead("HTTP/1.1 100 Continue"), ok(100, "100 Continue", -1, 0)},
		{"code 599", crlfHead("HTTP/1.1 599 Odd"), ok(599, "599 Odd", -1, 0)},
		{"obs-text in the reason and a value", crlfHead("HTTP/1.1 200 \x80K", "X-A: \xff"), ok(200, "200 \x80K", -1, 1)},
		{"LF-only line endings", "HTTP/1.1 200 OK\nContent-Length: 2\nX-A: 1\n\n", ok(200, "200 OK", 2, 2)},
		{"mixed line endings", "HTTP/1.1 200 OK\r\nContent-Length: 3\n\r\n", ok(200, "200 OK", 3, 1)},
		{"Date", crlfHead("HTTP/1.1 200 OK", "Date: Mon, 02 Jan 2006 15:04:05 GMT", "Content-Length: 0"),
			want{status: 200, statusLine: "200 OK", length: 0, nfields: 2}},
		{"date lowercase", crlfHead("HTTP/1.1 200 OK", "date: x"),
			want{status: 200, statusLine: "200 OK", length: -1, nfields: 1}},
		{"chunked", crlfHead("HTTP/1.1 200 OK", "Transfer-Encoding: chunked"),
			want{status: 200, statusLine: "200 OK", chunked: true, length: -1, nfields: 1}},
		{"Chunked any case", crlfHead("HTTP/1.1 200 OK", "transfer-encoding: Chunked"),
			want{status: 200, statusLine: "200 OK", chunked: true, length: -1, nfields: 1}},
		{"chunked overrides a later Content-Length", crlfHead("HTTP/1.1 200 OK", "Transfer-Encoding: chunked", "Content-Length: 10"),
			want{status: 200, statusLine: "200 OK", chunked: true, length: -1, nfields: 2}},
		{"chunked overrides an earlier Content-Length", crlfHead("HTTP/1.1 200 OK", "Content-Length: 10", "Transfer-Encoding: chunked"),
			want{status: 200, statusLine: "200 OK", chunked: true, length: -1, nfields: 2}},
		{"two equal Content-Length", crlfHead("HTTP/1.1 200 OK", "Content-Length: 5", "content-length: 5"), ok(200, "200 OK", 5, 2)},
		{"Connection close", crlfHead("HTTP/1.1 200 OK", "Connection: close"),
			want{status: 200, statusLine: "200 OK", length: -1, close: true, nfields: 1}},
		{"Connection keep-alive on 1.1 is no token", crlfHead("HTTP/1.1 200 OK", "Connection: keep-alive"),
			want{status: 200, statusLine: "200 OK", length: -1, nfields: 1}},
		{"Connection close then keep-alive on 1.1", crlfHead("HTTP/1.1 200 OK", "Connection: close, keep-alive"),
			want{status: 200, statusLine: "200 OK", length: -1, close: true, nfields: 1}},
		{"Connection tokens", crlfHead("HTTP/1.1 200 OK", "Connection: X-A, close, , x-b"),
			want{status: 200, statusLine: "200 OK", length: -1, close: true, tokens: []string{"X-A", "x-b"}, nfields: 1}},
		{"HTTP/1.0 closes", crlfHead("HTTP/1.0 200 OK", "Content-Length: 1"),
			want{status: 200, statusLine: "200 OK", length: 1, close: true, http10: true, nfields: 1}},
		{"HTTP/1.0 keep-alive", crlfHead("HTTP/1.0 200 OK", "Connection: Keep-Alive", "Content-Length: 1"),
			want{status: 200, statusLine: "200 OK", length: 1, http10: true, nfields: 2}},
		{"HTTP/1.0 keep-alive among tokens", crlfHead("HTTP/1.0 200 OK", "Connection: X-A, keep-alive"),
			want{status: 200, statusLine: "200 OK", length: -1, http10: true, tokens: []string{"X-A"}, nfields: 1}},
		{"HTTP/1.0 keep-alive then close", crlfHead("HTTP/1.0 200 OK", "Connection: keep-alive, close"),
			want{status: 200, statusLine: "200 OK", length: -1, close: true, http10: true, nfields: 1}},

		{"Transfer-Encoding gzip", crlfHead("HTTP/1.1 200 OK", "Transfer-Encoding: gzip"), rejected(`unsupported Transfer-Encoding "gzip"`)},
		{"Transfer-Encoding gzip, chunked", crlfHead("HTTP/1.1 200 OK", "Transfer-Encoding: gzip, chunked"), rejected(`unsupported Transfer-Encoding "gzip, chunked"`)},
		{"Transfer-Encoding identity", crlfHead("HTTP/1.1 200 OK", "Transfer-Encoding: identity"), rejected(`unsupported Transfer-Encoding "identity"`)},
		{"two different Content-Length", crlfHead("HTTP/1.1 200 OK", "Content-Length: 5", "Content-Length: 6"), rejected("malformed Content-Length")},
		{"Content-Length +5", crlfHead("HTTP/1.1 200 OK", "Content-Length: +5"), rejected("malformed Content-Length")},
		{"Content-Length abc", crlfHead("HTTP/1.1 200 OK", "Content-Length: abc"), rejected("malformed Content-Length")},
		{"Content-Length -1", crlfHead("HTTP/1.1 200 OK", "Content-Length: -1"), rejected("malformed Content-Length")},
		{"Content-Length empty", crlfHead("HTTP/1.1 200 OK", "Content-Length:"), rejected("malformed Content-Length")},
		{"Content-Length list", crlfHead("HTTP/1.1 200 OK", "Content-Length: 5, 5"), rejected("malformed Content-Length")},
		{"two-digit code", crlfHead("HTTP/1.1 20 OK"), rejected("malformed status line")},
		{"four-digit code", crlfHead("HTTP/1.1 2000 OK"), rejected("malformed status line")},
		{"short code without reason", crlfHead("HTTP/1.1 20"), rejected("malformed status line")},
		{"ICY", crlfHead("ICY 200 OK"), rejected("malformed status line")},
		{"HTTP/2", crlfHead("HTTP/2 200 OK"), rejected("malformed status line")},
		{"lowercase version", crlfHead("http/1.1 200 OK"), rejected("malformed status line")},
		{"double space", crlfHead("HTTP/1.1  200 OK"), rejected("malformed status line")},
		{"code not a number", crlfHead("HTTP/1.1 abc OK"), rejected("malformed status code")},
		{"code below 100", crlfHead("HTTP/1.1 099 Odd"), rejected("malformed status code")},
		{"negative code", crlfHead("HTTP/1.1 -12 Odd"), rejected("malformed status code")},
		{"NUL in the reason", crlfHead("HTTP/1.1 200 O\x00K"), rejected("control character in the status line")},
		{"CR inside the reason", crlfHead("HTTP/1.1 200 O\rK"), rejected("control character in the status line")},
		{"NUL in a value", crlfHead("HTTP/1.1 200 OK", "X-A: a\x00b"), rejected("control character in a header value")},
		{"CR inside a value", crlfHead("HTTP/1.1 200 OK", "X-A: a\rb"), rejected("control character in a header value")},
		{"DEL in a value", crlfHead("HTTP/1.1 200 OK", "X-A: \x7f"), rejected("control character in a header value")},
		{"obs-fold", crlfHead("HTTP/1.1 200 OK", "X-A: 1", " folded"), rejected("malformed header field")},
		{"space before the colon", crlfHead("HTTP/1.1 200 OK", "X-A : 1"), rejected("malformed header field")},
		{"no colon", crlfHead("HTTP/1.1 200 OK", "NoColon"), rejected("malformed header field")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var h respHead
			got := parseResponseHead([]byte(tc.head), &h)
			if got != tc.want.reason {
				t.Fatalf("reason = %q, want %q", got, tc.want.reason)
			}
			if got != "" {
				return
			}
			w := tc.want
			if h.status != w.status {
				t.Errorf("status = %d, want %d", h.status, w.status)
			}
			if string(h.statusLine) != w.statusLine {
				t.Errorf("statusLine = %q, want %q", h.statusLine, w.statusLine)
			}
			if h.chunked != w.chunked {
				t.Errorf("chunked = %v, want %v", h.chunked, w.chunked)
			}
			if h.length != w.length {
				t.Errorf("length = %d, want %d", h.length, w.length)
			}
			if h.close != w.close {
				t.Errorf("close = %v, want %v", h.close, w.close)
			}
			if h.http10 != w.http10 {
				t.Errorf("http10 = %v, want %v", h.http10, w.http10)
			}
			if tokens := byteStrings(h.connTokens); !slices.Equal(tokens, w.tokens) {
				t.Errorf("connTokens = %q, want %q", tokens, w.tokens)
			}
			if len(h.fields) != w.nfields {
				t.Errorf("len(fields) = %d, want %d: %q", len(h.fields), w.nfields, fieldStrings(h.fields))
			}
		})
	}

	t.Run("fields keep order and spelling, values trimmed", func(t *testing.T) {
		var h respHead
		if why := parseResponseHead([]byte(crlfHead("HTTP/1.1 200 OK", "x-a:  1 ", "Content-Length:\t2", "X-Empty:")), &h); why != "" {
			t.Fatal(why)
		}
		want := []string{"x-a|1", "Content-Length|2", "X-Empty|"}
		if got := fieldStrings(h.fields); !slices.Equal(got, want) {
			t.Errorf("fields = %q, want %q", got, want)
		}
	})

	t.Run("reused head is reset", func(t *testing.T) {
		var h respHead
		if why := parseResponseHead([]byte(crlfHead("HTTP/1.0 200 OK", "Transfer-Encoding: chunked", "Date: x", "Connection: X-A")), &h); why != "" {
			t.Fatal(why)
		}
		if why := parseResponseHead([]byte(crlfHead("HTTP/1.1 204 No Content")), &h); why != "" {
			t.Fatal(why)
		}
		if h.status != 204 || h.http10 || h.close || h.chunked || h.length != -1 || len(h.connTokens) != 0 || len(h.fields) != 0 {
			t.Errorf("second head = %+v, want a clean 204", h)
		}
	})

	t.Run("HTTP/1.0 close then keep-alive still closes", func(t *testing.T) {
		// close wins over keep-alive, as in net/http's shouldClose.
		for _, head := range []string{
			crlfHead("HTTP/1.0 200 OK", "Connection: close, keep-alive", "Content-Length: 0"),
			crlfHead("HTTP/1.0 200 OK", "Connection: close", "Connection: keep-alive", "Content-Length: 0"),
		} {
			var h respHead
			if why := parseResponseHead([]byte(head), &h); why != "" {
				t.Fatalf("%q: %s", head, why)
			}
			if !h.close {
				t.Errorf("%q: close = false, want true", head)
			}
		}
	})
}

func TestRespHead_bodiless(t *testing.T) {
	tests := []struct {
		status int
		head   bool
		want   bool
	}{
		{100, false, true},
		{101, false, true},
		{103, false, true},
		{199, false, true},
		{200, false, false},
		{200, true, true},
		{201, false, false},
		{204, false, true},
		{205, false, false},
		{304, false, true},
		{304, true, true},
		{404, false, false},
		{404, true, true},
		{500, false, false},
	}
	for _, tc := range tests {
		name := strconv.Itoa(tc.status) + " " + http.StatusText(tc.status)
		if tc.head {
			name += " to HEAD"
		}
		t.Run(name, func(t *testing.T) {
			h := respHead{status: tc.status}
			if got := h.bodiless(tc.head); got != tc.want {
				t.Errorf("bodiless(%v) for %d = %v, want %v", tc.head, tc.status, got, tc.want)
			}
		})
	}
}

func TestHeadEnd(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"CRLF CRLF", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 27},
		{"CRLF CRLF with a body after", "GET / HTTP/1.1\r\nHost: x\r\n\r\nbody\r\n\r\n", 27},
		{"LF LF", "GET / HTTP/1.1\nHost: x\n\n", 24},
		{"CRLF then LF", "A\r\nB: c\r\n\n", 10},
		{"LF then CRLF", "A\nB: c\n\r\n", 9},
		{"request line only", "A\r\n\r\n", 5},
		{"bare empty head", "\r\n\r\n", 4},
		{"bare LF LF", "\n\n", 2},
		{"CR not before LF is no line end", "A\r\nB\r\r\n\r\n", 9},
		{"first of two heads", "A\r\n\r\nB\r\n\r\n", 5},
		{"empty", "", -1},
		{"no line end", "GET / HTTP/1.1", -1},
		{"one line", "GET / HTTP/1.1\r\n", -1},
		{"fields without the empty line", "GET / HTTP/1.1\r\nHost: x\r\n", -1},
		{"final CR only", "GET / HTTP/1.1\r\nHost: x\r\n\r", -1},
		{"lone CRLF", "\r\n", -1},
		{"CR CR LF is no empty line", "A\r\n\r\r\n", -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := headEnd([]byte(tc.in)); got != tc.want {
				t.Errorf("headEnd(%q) = %d, want %d", tc.in, got, tc.want)
			}
		})
	}
}

func TestParseChunkSize(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		want    int64
		wantErr bool
	}{
		{"hex", "1a", 0x1a, false},
		{"upper-case hex", "1A", 0x1a, false},
		{"extension", "1a;ext=1", 0x1a, false},
		{"extension after whitespace", "1a ; ext", 0x1a, false},
		{"extension after a tab", "1a\t;ext", 0x1a, false},
		{"trailing whitespace", "ff ", 0xff, false},
		{"zero", "0", 0, false},
		{"last chunk with extension", "0;x", 0, false},
		{"leading zeros", "000a", 10, false},
		{"fifteen digits", "fffffffffffffff", 0xfffffffffffffff, false},
		{"empty", "", 0, true},
		{"extension only", ";ext", 0, true},
		{"leading space", " 1a", 0, true},
		{"not hex", "zz", 0, true},
		{"hex prefix", "0x1a", 0, true},
		{"negative", "-1", 0, true},
		{"sixteen digits", "0000000000000001", 0, true},
		{"sixteen f", "ffffffffffffffff", 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseChunkSize([]byte(tc.line))
			if (err != nil) != tc.wantErr {
				t.Fatalf("parseChunkSize(%q) error = %v, want error %v", tc.line, err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("parseChunkSize(%q) = %d, want %d", tc.line, got, tc.want)
			}
		})
	}

	t.Run("chunk-size is HEXDIG only", func(t *testing.T) {
		// RFC 9112 §7.1 allows only 1*HEXDIG, then BWS before ";".
		for _, line := range []string{"+1", "1 2"} {
			if n, err := parseChunkSize([]byte(line)); err == nil {
				t.Errorf("parseChunkSize(%q) = %d, want an error", line, n)
			}
		}
	})
}

func TestEqualFold(t *testing.T) {
	tests := []struct {
		b, s string
		want bool
	}{
		{"Host", "Host", true},
		{"host", "HOST", true},
		{"HoSt", "hOsT", true},
		{"Keep-Alive", "keep-alive", true},
		{"X-A1", "x-a1", true},
		{"", "", true},
		{"Host", "Hosts", false},
		{"Hosts", "Host", false},
		{"Host", "", false},
		{"Host", "Hose", false},
		{"X-A", "X_A", false},
		{"[", "{", false},    // 0x5b | 0x20 == 0x7b, but neither is a letter
		{"@", "`", false},    // 0x40 | 0x20 == 0x60
		{"1", "\x11", false}, // 0x31 vs 0x11 differ by 0x20 only
		{"\xc1", "\xe1", false},
		{"\xe1", "\xc1", false},
	}
	for _, tc := range tests {
		t.Run(strings.ToValidUTF8(tc.b+"~"+tc.s, "?"), func(t *testing.T) {
			if got := equalFold([]byte(tc.b), tc.s); got != tc.want {
				t.Errorf("equalFold(%q, %q) = %v, want %v", tc.b, tc.s, got, tc.want)
			}
		})
	}
}

func TestHeaderPicker_pickFields(t *testing.T) {
	hp := newHeaderPicker([]string{"Idempotency-Key", "x-request-id", "Keep-Alive", "RateLimit*", "X-RateLimit-*"})
	fs := func(kv ...string) []field {
		var out []field
		for i := 0; i < len(kv); i += 2 {
			out = append(out, field{[]byte(kv[i]), []byte(kv[i+1])})
		}
		return out
	}
	tests := []struct {
		name       string
		fields     []field
		connTokens []string
		skipHop    bool
		want       map[string]string
	}{
		{"exact names any case, canonical keys",
			fs("idempotency-key", "k1", "X-REQUEST-ID", "r1", "Accept", "*/*"), nil, false,
			map[string]string{"Idempotency-Key": "k1", "X-Request-Id": "r1"}},
		{"exact name is not a prefix",
			fs("Idempotency-Keys", "k", "X-Request-Id-2", "r"), nil, false, nil},
		{"prefixes",
			fs("RateLimit", "10", "ratelimit-policy", "p", "X-RateLimit-Remaining", "3", "x-ratelimitfoo", "no", "Rate", "no"), nil, false,
			map[string]string{"Ratelimit": "10", "Ratelimit-Policy": "p", "X-Ratelimit-Remaining": "3"}},
		{"repeated values joined in order",
			fs("Idempotency-Key", "a", "X-Other", "z", "idempotency-key", "b", "IDEMPOTENCY-KEY", "c"), nil, false,
			map[string]string{"Idempotency-Key": "a, b, c"}},
		{"repeated prefixed values joined",
			fs("RateLimit-Limit", "1", "ratelimit-limit", "2"), nil, false,
			map[string]string{"Ratelimit-Limit": "1, 2"}},
		{"nothing wanted", fs("Accept", "*/*", "Host", "x"), nil, false, nil},
		{"no fields", nil, nil, true, nil},
		{"hop field kept without skipHop",
			fs("Keep-Alive", "timeout=5", "RateLimit", "1"), []string{"RateLimit"}, false,
			map[string]string{"Keep-Alive": "timeout=5", "Ratelimit": "1"}},
		{"skipHop drops hop fields",
			fs("keep-alive", "timeout=5", "Retry-After", "1", "Idempotency-Key", "k"), nil, true,
			map[string]string{"Idempotency-Key": "k"}},
		{"skipHop drops fields named in Connection, any case",
			fs("RateLimit", "1", "RateLimit-Policy", "p", "x-request-id", "r"), []string{"ratelimit", "X-Request-ID"}, true,
			map[string]string{"Ratelimit-Policy": "p"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var tokens [][]byte
			for _, s := range tc.connTokens {
				tokens = append(tokens, []byte(s))
			}
			got := hp.pickFields(tc.fields, tokens, tc.skipHop)
			if !maps.Equal(got, tc.want) {
				t.Errorf("pickFields = %q, want %q", got, tc.want)
			}
			if tc.want == nil && got != nil {
				t.Errorf("pickFields = %#v, want nil", got)
			}
			if tc.skipHop {
				return
			}
			// Without skipHop it agrees with pick on the same fields.
			hdr := http.Header{}
			for _, f := range tc.fields {
				k := textproto.CanonicalMIMEHeaderKey(string(f.name))
				hdr[k] = append(hdr[k], string(f.value))
			}
			if want := hp.pick(hdr); !maps.Equal(got, want) {
				t.Errorf("pickFields = %q, pick on the same header = %q", got, want)
			}
		})
	}
}
