package faults

import (
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// h2Raw opens an h2c connection to p and exchanges SETTINGS, so the
// server's limits are in force; it returns a framer on it.
func h2Raw(t *testing.T, p *Proxy) (*http2.Framer, *h2Frames) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(20 * time.Second)) // a bound for a loaded machine, not a timing
	if _, err := io.WriteString(c, http2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	fr := http2.NewFramer(c, c)
	fr.MaxHeaderListSize = 1 << 20
	fr.ReadMetaHeaders = hpack.NewDecoder(4<<10, nil)
	if err := fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	for acked := false; !acked; {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatal(err)
		}
		if s, ok := f.(*http2.SettingsFrame); ok && !s.IsAck() {
			_ = fr.WriteSettingsAck()
		} else if ok {
			acked = true
		}
	}
	return fr, newH2Frames()
}

// TestProxy_HTTP2HugeHeaderBlock: a header block over MaxHeaderBytes never
// reaches the handler. Within one frame it is answered 431 on its stream;
// spread over CONTINUATION frames far past the limit it ends the
// connection (GOAWAY PROTOCOL_ERROR: net/http stops decoding a block more
// than twice what it would keep); one field longer than the whole limit
// ends it with COMPRESSION_ERROR (the HPACK decoder will not hold it).
func TestProxy_HTTP2HugeHeaderBlock(t *testing.T) {
	t.Parallel()
	fields := func(n int) []string {
		var kv []string
		for i := range n {
			kv = append(kv, fmt.Sprintf("x-f%d", i), strings.Repeat("a", 1<<10))
		}
		return kv
	}
	tests := []struct {
		name   string
		fields []string
		want   string // "431" or a GOAWAY code
	}{
		{"over the limit in one frame", fields(12), "431"},
		{"continuation flood", fields(64), http2.ErrCodeProtocol.String()},
		{"one huge field", []string{"x-big", strings.Repeat("a", 12<<10)}, http2.ErrCodeCompression.String()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := startProxy(t, WithLimits(Limits{MaxHeaderBytes: 4 << 10}))
			fr, enc := h2Raw(t, p)
			block := enc.block("GET", "/", tt.fields...)
			const chunk = 12 << 10
			first := min(chunk, len(block))
			_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: block[:first], EndStream: true, EndHeaders: first == len(block)})
			for rest := block[first:]; len(rest) > 0; {
				n := min(chunk, len(rest))
				if err := fr.WriteContinuation(1, n == len(rest), rest[:n]); err != nil {
					break // the server may close before the block ends
				}
				rest = rest[n:]
			}
			got := ""
			for got == "" {
				f, err := fr.ReadFrame()
				if err != nil {
					t.Fatalf("%d-byte header block: %v before an answer or GOAWAY", len(block), err)
				}
				switch f := f.(type) {
				case *http2.GoAwayFrame:
					got = f.ErrCode.String()
				case *http2.MetaHeadersFrame:
					got = f.PseudoValue("status")
				}
			}
			if got != tt.want {
				t.Errorf("%d-byte header block: %s, want %s", len(block), got, tt.want)
			}
			if es := p.Journal().Snapshot(); len(es) != 0 {
				t.Errorf("journal %+v: the oversized request reached the proxy's handler", es)
			}
		})
	}
}

// TestProxy_HTTP2StreamFlood: a client opening more streams than
// MaxConcurrentStreams has the extra ones refused (RST_STREAM) while the
// first ones stay open, and the connection lives on.
func TestProxy_HTTP2StreamFlood(t *testing.T) {
	t.Parallel()
	const limit = 4
	p := startProxy(t, WithLimits(Limits{MaxConcurrentStreams: limit}))
	fr, enc := h2Raw(t, p)
	for i := range 2 * limit {
		// No END_STREAM: each stream stays open, its handler reading a body.
		id := uint32(2*i + 1)
		if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: enc.block("POST", "/", "content-length", "1"), EndHeaders: true}); err != nil {
			t.Fatal(err)
		}
	}
	refused := map[uint32]http2.ErrCode{}
	for len(refused) < limit {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("after %d refusals: %v", len(refused), err)
		}
		switch f := f.(type) {
		case *http2.RSTStreamFrame:
			refused[f.StreamID] = f.ErrCode
		case *http2.GoAwayFrame:
			t.Fatalf("GOAWAY %v: the flood cost the connection", f.ErrCode)
		}
	}
	for id, code := range refused {
		if id <= 2*limit-1 || (code != http2.ErrCodeRefusedStream && code != http2.ErrCodeProtocol) {
			t.Errorf("stream %d reset with %v; want only streams past the first %d refused", id, code, limit)
		}
	}
	// The open streams still complete.
	for i := range limit {
		_ = fr.WriteData(uint32(2*i+1), true, []byte("x"))
	}
	answered := 0
	for answered < limit {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("after %d answers: %v", answered, err)
		}
		if h, ok := f.(*http2.MetaHeadersFrame); ok && h.StreamID <= 2*limit-1 {
			answered++
		}
	}
}
