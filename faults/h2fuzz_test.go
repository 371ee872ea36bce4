package faults

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// h2Frames builds a seed: frames as an h2c client writes them after the
// connection preface.
type h2Frames struct {
	buf bytes.Buffer
	fr  *http2.Framer
	enc *hpack.Encoder
	hb  bytes.Buffer
}

func newH2Frames() *h2Frames {
	f := &h2Frames{}
	f.fr = http2.NewFramer(&f.buf, nil)
	f.enc = hpack.NewEncoder(&f.hb)
	return f
}

// block hpack-encodes a request head, extra fields last.
func (f *h2Frames) block(method, path string, extra ...string) []byte {
	return f.fields(append([]string{":method", method, ":scheme", "http", ":authority", "proxy", ":path", path}, extra...)...)
}

// fields hpack-encodes name, value pairs as they are.
func (f *h2Frames) fields(kv ...string) []byte {
	f.hb.Reset()
	for i := 0; i+1 < len(kv); i += 2 {
		_ = f.enc.WriteField(hpack.HeaderField{Name: kv[i], Value: kv[i+1]})
	}
	return bytes.Clone(f.hb.Bytes())
}

// request writes a whole request on stream id: HEADERS, then DATA with
// END_STREAM when body is not empty.
func (f *h2Frames) request(id uint32, method, path, body string, extra ...string) *h2Frames {
	_ = f.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: f.block(method, path, extra...), EndHeaders: true, EndStream: body == ""})
	if body != "" {
		_ = f.fr.WriteData(id, true, []byte(body))
	}
	return f
}

func (f *h2Frames) bytes() []byte { return bytes.Clone(f.buf.Bytes()) }

// h2Seeds are inputs that reach the corners of net/http's HTTP/2 server
// behind the proxy: requests that pass and meet a fault, trailers, a
// stream reset, priorities, bad frames, and headers too big to keep.
func h2Seeds() [][]byte {
	var seeds [][]byte
	add := func(f *h2Frames) { seeds = append(seeds, f.bytes()) }
	f := newH2Frames()
	_ = f.fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1 << 16})
	add(f.request(1, "GET", "/", "").request(3, "POST", "/charges", "{}", "idempotency-key", "k1"))
	add(newH2Frames().request(1, "GET", "/reset", ""))
	add(newH2Frames().request(1, "POST", "/grpc.health.v1.Health/Check", "\x00\x00\x00\x00\x00", "content-type", "application/grpc", "te", "trailers"))
	f = newH2Frames()
	_ = f.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: f.block("POST", "/t", "trailer", "x-sum"), EndHeaders: true})
	_ = f.fr.WriteData(1, false, []byte("body"))
	_ = f.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: f.fields("x-sum", "1"), EndHeaders: true, EndStream: true})
	add(f)
	f = newH2Frames().request(1, "POST", "/slow", "")
	_ = f.fr.WriteRSTStream(1, http2.ErrCodeCancel)
	_ = f.fr.WritePing(false, [8]byte{1})
	_ = f.fr.WriteWindowUpdate(0, 1<<30)
	_ = f.fr.WritePriority(3, http2.PriorityParam{StreamDep: 3})
	add(f)
	f = newH2Frames()
	_ = f.fr.WriteData(0, true, []byte("data on stream 0"))
	add(f)
	f = newH2Frames()
	_ = f.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: f.block("GET", "/", "x-big", strings.Repeat("a", 1<<10))[:40]})
	for range 8 {
		_ = f.fr.WriteContinuation(1, false, bytes.Repeat([]byte{0x40}, 1<<10))
	}
	add(f)
	add(newH2Frames().request(2, "GET", "/even-stream-id", ""))
	return seeds
}

// h2FuzzProxy is one stand-in proxy per fuzzing process, with faults on
// the seeds' paths: reset, blackhole, grpc-status and goaway.
var h2FuzzProxy = sync.OnceValues(func() (*Proxy, error) {
	p, err := NewProxy(WithSeed(1), WithLimits(Limits{MaxHeaderBytes: 8 << 10, MaxConcurrentStreams: 8, ReadHeaderTimeout: 2 * time.Second}),
		WithRules(Rule{Name: "rst", Match: Match{Path: "/reset"}, Fault: Reset{}},
			Rule{Name: "slow", Match: Match{Path: "/slow"}, Fault: Blackhole{Timeout: 100 * time.Millisecond}},
			Rule{Name: "grpc", Match: Match{Path: "/grpc.health.v1.Health/*"}, Fault: GRPCStatus{Code: 14, Pushback: time.Second}},
			Rule{Name: "goaway", Match: Match{Path: "/charges"}, Fault: GoAway{}}))
	if err != nil {
		return nil, err
	}
	if _, err := p.Start("127.0.0.1:0"); err != nil {
		return nil, err
	}
	return p, nil
})

// FuzzHTTP2_Server feeds the proxy's HTTP/2 server (h2c, prior knowledge)
// arbitrary frames after the connection preface. Whatever they are, the
// server ends the connection once the client stops sending, without a
// panic, and the proxy still answers a well-formed request.
func FuzzHTTP2_Server(f *testing.F) {
	for _, s := range h2Seeds() {
		f.Add(s)
	}
	check := h2cClient()
	check.Timeout = 20 * time.Second // a bound: a proxy that stopped answering fails here
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<20 {
			return
		}
		p, err := h2FuzzProxy()
		if err != nil {
			t.Fatal(err)
		}
		c, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(20 * time.Second)) // a bound, not a timing: a hang fails here
		go func() {
			_, _ = c.Write(append([]byte(http2.ClientPreface), b...))
			_ = c.(*net.TCPConn).CloseWrite()
		}()
		if err := awaitEnd(c); err != nil {
			t.Fatalf("the server did not end the connection: %v", err)
		}
		resp, err := check.Get(p.URL() + "/alive")
		if err != nil {
			t.Fatalf("the proxy stopped answering: %v", err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("the proxy answers %d", resp.StatusCode)
		}
	})
}

// awaitEnd reads the server's frames until it says GOAWAY or closes: a
// server that ended the connection on a protocol error holds the socket a
// second more (net/http's goAwayTimeout), which is no business of the test.
func awaitEnd(c net.Conn) error {
	fr := http2.NewFramer(io.Discard, c)
	for {
		f, err := fr.ReadFrame()
		var se http2.StreamError
		switch {
		case errors.As(err, &se):
			continue // a frame the framer refuses is the server's business
		case err == nil:
			if _, ok := f.(*http2.GoAwayFrame); ok {
				return nil
			}
			continue
		case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed), strings.Contains(err.Error(), "connection reset"):
			return nil
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return err
		}
		return nil // a frame the client-side framer cannot parse ends our reading, not the test
	}
}
