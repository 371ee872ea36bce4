package faults

import (
	"bytes"
	"iter"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"

	"golang.org/x/net/http/httpguts"
)

// field is one header line of a parsed head, as slices into the read buffer.
type field struct{ name, value []byte }

// reqHead is a request head the lean path can serve. Its slices point into
// the connection's read buffer and are valid until the head is discarded.
type reqHead struct {
	method, target []byte
	fields         []field
	size           int   // bytes of the head, final CRLF included
	contentLength  int64 // -1 without a Content-Length field
	close          bool  // the client sent Connection: close
	connTokens     [][]byte
}

// parseRequestHead parses the complete head b (ending in CRLF CRLF) into h.
// It returns "" when the lean path may serve the request, or why net/http
// must: anything but a plain HTTP/1.1 request in origin form with
// unambiguous framing goes to the server that knows every corner case, so
// the lean path never decides a request-smuggling question by itself.
func parseRequestHead(b []byte, h *reqHead, maxBody int64) string {
	*h = reqHead{fields: h.fields[:0], connTokens: h.connTokens[:0], size: len(b), contentLength: -1}
	line, rest, ok := cutLine(b)
	if !ok {
		return "bare LF"
	}
	sp := bytes.IndexByte(line, ' ')
	if sp <= 0 || !isToken(line[:sp]) {
		return "malformed method"
	}
	h.method, line = line[:sp], line[sp+1:]
	sp = bytes.IndexByte(line, ' ')
	if sp <= 0 || line[0] != '/' || !isTarget(line[:sp]) {
		return "not an origin-form target"
	}
	h.target = line[:sp]
	if string(line[sp+1:]) != "HTTP/1.1" {
		return "not HTTP/1.1"
	}
	if string(h.method) == http.MethodConnect {
		return "CONNECT"
	}
	hosts, lengths := 0, 0
	for {
		if line, rest, ok = cutLine(rest); !ok {
			return "bare LF"
		}
		if len(line) == 0 {
			break
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || !isToken(line[:colon]) {
			return "malformed header field" // also obs-fold, whose line starts with whitespace
		}
		name, value := line[:colon], trimOWS(line[colon+1:])
		if !isFieldValue(value) {
			return "control character in a header value"
		}
		switch {
		case equalFold(name, "Host"):
			hosts++
			if !isHost(value) {
				return "malformed Host"
			}
		case equalFold(name, "Content-Length"):
			lengths++
			n, err := strconv.ParseUint(string(value), 10, 63)
			if err != nil { // ParseUint takes no sign
				return "malformed Content-Length"
			}
			if int64(n) > maxBody {
				return "body over the limit"
			}
			h.contentLength = int64(n)
		case equalFold(name, "Transfer-Encoding"):
			return "Transfer-Encoding"
		case equalFold(name, "Expect"):
			return "Expect"
		case equalFold(name, "Upgrade"):
			return "Upgrade"
		case equalFold(name, "Connection"):
			for tok := range listItems(value) {
				switch {
				case equalFold(tok, "close"):
					h.close = true
				case equalFold(tok, "upgrade"):
					return "Upgrade"
				default:
					h.connTokens = append(h.connTokens, tok)
				}
			}
		}
		h.fields = append(h.fields, field{name, value})
	}
	if hosts != 1 {
		return "not exactly one Host"
	}
	for _, tok := range h.connTokens {
		if equalFold(tok, "Content-Length") || equalFold(tok, "Host") {
			return "Connection names a framing field" // dropping it would reframe the body
		}
	}
	if !validEscapes(h.target) {
		return "invalid percent-escape in the target"
	}
	if lengths > 1 {
		return "several Content-Length fields"
	}
	return ""
}

// validEscapes reports whether every % in b starts a two-digit hex escape,
// which net/http's server requires of a request target.
func validEscapes(b []byte) bool {
	for i := bytes.IndexByte(b, '%'); i >= 0; i = bytes.IndexByte(b, '%') {
		if i+2 >= len(b) || !isHex(b[i+1]) || !isHex(b[i+2]) {
			return false
		}
		b = b[i+3:]
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// isHop reports whether a field named name is meaningful for one connection
// only (RFC 9110 §7.6.1) or is one the proxy sets itself, given the tokens
// of the message's Connection field.
func isHop(name []byte, connTokens [][]byte) bool {
	for _, k := range hopHeaders {
		if equalFold(name, k) {
			return true
		}
	}
	for _, t := range connTokens {
		if bytes.EqualFold(name, t) {
			return true
		}
	}
	return false
}

// pathQuery splits the target into the unescaped path and the raw query, as
// net/http would present them.
func (h *reqHead) pathQuery() (path, query string) {
	t := h.target
	if i := bytes.IndexByte(t, '?'); i >= 0 {
		t, query = t[:i], string(t[i+1:])
	}
	if bytes.IndexByte(t, '%') < 0 {
		return string(t), query
	}
	if p, err := url.PathUnescape(string(t)); err == nil {
		return p, query
	}
	return string(t), query
}

// request builds the view of the head that rules match against.
func (h *reqHead) request(path string) *http.Request {
	hdr := make(http.Header, len(h.fields))
	for _, f := range h.fields {
		if equalFold(f.name, "Host") {
			continue // net/http keeps Host out of Header, and rules match as there
		}
		k := textproto.CanonicalMIMEHeaderKey(string(f.name))
		hdr[k] = append(hdr[k], string(f.value))
	}
	return &http.Request{Method: string(h.method), URL: &url.URL{Path: path}, Header: hdr, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}
}

// appendOutbound appends the head to send upstream: the target joined to
// the upstream's base path and query, Host set to the upstream, hop-by-hop
// fields dropped, everything else in the client's order and spelling.
func (h *reqHead) appendOutbound(b []byte, up *url.URL) []byte {
	b = append(b, h.method...)
	b = append(b, ' ')
	target, query := h.target, []byte(nil)
	if i := bytes.IndexByte(target, '?'); i >= 0 {
		target, query = target[:i], target[i+1:]
	}
	if base := up.EscapedPath(); base != "" && base != "/" {
		b = append(b, base...)
		if b[len(b)-1] == '/' {
			b = b[:len(b)-1]
		}
	}
	b = append(b, target...)
	switch {
	case up.RawQuery != "" && len(query) > 0:
		b = append(append(append(append(b, '?'), up.RawQuery...), '&'), query...)
	case up.RawQuery != "":
		b = append(append(b, '?'), up.RawQuery...)
	case query != nil:
		b = append(append(b, '?'), query...)
	}
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, up.Host...)
	b = append(b, "\r\n"...)
	for _, f := range h.fields {
		if equalFold(f.name, "Host") || isHop(f.name, h.connTokens) {
			continue
		}
		b = appendField(b, f.name, f.value)
	}
	if h.contentLength < 0 {
		switch string(h.method) {
		case http.MethodPost, http.MethodPut, http.MethodPatch:
			b = append(b, "Content-Length: 0\r\n"...) // as net/http's client does
		}
	}
	return append(b, "\r\n"...)
}

func appendField(b, name, value []byte) []byte {
	b = append(b, name...)
	b = append(b, ": "...)
	b = append(b, value...)
	return append(b, "\r\n"...)
}

// pick copies the journaled fields, keyed by canonical name, joining
// repeated values with ", " as headerPicker.pick does for an http.Header.
func (hp *headerPicker) pickFields(fields []field, connTokens [][]byte, skipHop bool) map[string]string {
	var out map[string]string
	for _, f := range fields {
		if (skipHop && isHop(f.name, connTokens)) || equalFold(f.name, "Host") {
			continue // Host is no header on net/http's path either
		}
		if !hp.wants(f.name) {
			continue
		}
		if out == nil {
			out = make(map[string]string, 4)
		}
		k := textproto.CanonicalMIMEHeaderKey(string(f.name))
		if v, ok := out[k]; ok {
			out[k] = v + ", " + string(f.value)
		} else {
			out[k] = string(f.value)
		}
	}
	return redactCredentials(out)
}

func (hp *headerPicker) wants(name []byte) bool {
	for _, k := range hp.exact {
		if equalFold(name, k) {
			return true
		}
	}
	for _, p := range hp.prefixes {
		if len(name) >= len(p) && equalFold(name[:len(p)], p) {
			return true
		}
	}
	return false
}

// respHead is an upstream response head.
type respHead struct {
	status     int
	statusLine []byte // "200 OK": code and reason as the upstream sent them
	fields     []field
	http10     bool
	close      bool
	chunked    bool
	length     int64 // -1: unknown (chunked or until close)
	connTokens [][]byte
}

// parseResponseHead parses a complete response head (ending in CRLF CRLF or
// LF LF) into h, or returns what is wrong with it.
func parseResponseHead(b []byte, h *respHead) string {
	*h = respHead{fields: h.fields[:0], connTokens: h.connTokens[:0], length: -1}
	line, rest := cutLineLax(b)
	switch {
	case bytes.HasPrefix(line, []byte("HTTP/1.1 ")):
	case bytes.HasPrefix(line, []byte("HTTP/1.0 ")):
		h.http10 = true
	default:
		return "malformed status line"
	}
	h.statusLine = line[len("HTTP/1.1 "):]
	if len(h.statusLine) < 3 || (len(h.statusLine) > 3 && h.statusLine[3] != ' ') {
		return "malformed status line"
	}
	code, err := strconv.Atoi(string(h.statusLine[:3]))
	if err != nil || code < 100 {
		return "malformed status code"
	}
	if !isFieldValue(h.statusLine) {
		return "control character in the status line"
	}
	h.status = code
	lengths, keepAlive := 0, false
	for {
		line, rest = cutLineLax(rest)
		if len(line) == 0 {
			break
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || !isToken(line[:colon]) {
			return "malformed header field"
		}
		name, value := line[:colon], trimOWS(line[colon+1:])
		if !isFieldValue(value) {
			return "control character in a header value"
		}
		switch {
		case equalFold(name, "Transfer-Encoding"):
			if !equalFold(value, "chunked") {
				return "unsupported Transfer-Encoding " + strconv.Quote(string(value))
			}
			if h.chunked {
				return "Transfer-Encoding repeated"
			}
			h.chunked = true
		case equalFold(name, "Content-Length"):
			n, err := strconv.ParseUint(string(value), 10, 63)
			if err != nil || (lengths > 0 && int64(n) != h.length) {
				return "malformed Content-Length"
			}
			lengths++
			h.length = int64(n)
		case equalFold(name, "Connection"):
			for tok := range listItems(value) {
				switch {
				case equalFold(tok, "close"):
					h.close = true
				case equalFold(tok, "keep-alive"):
					keepAlive = true
				default:
					h.connTokens = append(h.connTokens, tok)
				}
			}
		}
		h.fields = append(h.fields, field{name, value})
	}
	if h.http10 && (!keepAlive || h.chunked) {
		// HTTP/1.0 closes unless it says keep-alive; chunked framing there is
		// faulty (RFC 9112 §6.1), so the connection is not reused either.
		h.close = true
	}
	if h.chunked {
		h.length = -1 // RFC 9112 §6.3: Transfer-Encoding overrides Content-Length
	}
	return ""
}

// bodiless reports whether the response carries no body whatever its fields
// say (RFC 9112 §6.3); head is whether it answers a HEAD request.
func (h *respHead) bodiless(head bool) bool {
	return head || h.status < 200 || h.status == http.StatusNoContent || h.status == http.StatusNotModified
}

// cutLine splits off a CRLF-terminated line; ok is false for a bare LF.
func cutLine(b []byte) (line, rest []byte, ok bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 1 || b[i-1] != '\r' {
		return nil, nil, false
	}
	return b[:i-1], b[i+1:], true
}

// cutLineLax splits off a line ending in LF or CRLF, as RFC 9112 §2.2 lets
// a recipient accept.
func cutLineLax(b []byte) (line, rest []byte) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil
	}
	line, rest = b[:i], b[i+1:]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	return line, rest
}

// headEnd returns the length of the head at the start of b, through the
// empty line, or -1 if b does not hold all of it yet.
func headEnd(b []byte) int {
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return -1
		}
		i += j + 1
		if i < len(b) && b[i] == '\n' {
			return i + 1
		}
		if i+1 < len(b) && b[i] == '\r' && b[i+1] == '\n' {
			return i + 2
		}
	}
}

var tokenTable = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()

func isToken(b []byte) bool {
	for _, c := range b {
		if !tokenTable[c] {
			return false
		}
	}
	return len(b) > 0
}

// isTarget accepts the visible ASCII a request target may hold.
func isTarget(b []byte) bool {
	for _, c := range b {
		if c <= ' ' || c >= 0x7f {
			return false
		}
	}
	return true
}

// isFieldValue rejects control characters other than HTAB; obs-text passes,
// as net/http lets it.
func isFieldValue(b []byte) bool {
	for _, c := range b {
		if (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// isHost accepts what a Host field may hold: exactly what net/http's server
// accepts, so the lean path never serves a request net/http would refuse.
func isHost(b []byte) bool { return httpguts.ValidHostHeader(string(b)) }

// listItems yields the non-empty items of a comma-separated field value,
// trimmed (RFC 9110 §5.6.1).
func listItems(v []byte) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for item := range bytes.SplitSeq(v, []byte(",")) {
			if item = trimOWS(item); len(item) > 0 && !yield(item) {
				return
			}
		}
	}
}

func trimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// equalFold is ASCII case-insensitive equality without allocating.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		x, y := b[i], s[i]
		if x == y {
			continue
		}
		if lx := x | 0x20; lx < 'a' || lx > 'z' || lx != y|0x20 {
			return false
		}
	}
	return true
}
