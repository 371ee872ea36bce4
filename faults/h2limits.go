package faults

import "net/http"

// http2Config bounds what one HTTP/2 client connection can make the proxy
// hold in framing: open streams, the HPACK tables, a frame, and the request
// bytes received and not yet read (per stream and for the whole
// connection). A request body a stream's handler buffers is bounded per
// stream by Limits.MaxBodyBytes, so a connection may hold up to
// MaxConcurrentStreams of them. The header list is bounded by
// Limits.MaxHeaderBytes, as on HTTP/1.1: a block over it in one frame is
// refused with 431, and one spread over CONTINUATION frames or holding a
// field larger than the HPACK table ends the connection with GOAWAY.
func http2Config(l Limits) *http.HTTP2Config {
	return &http.HTTP2Config{
		MaxConcurrentStreams:          l.MaxConcurrentStreams,
		MaxDecoderHeaderTableSize:     4 << 10, // RFC 9113's initial size: a client cannot ask for more
		MaxEncoderHeaderTableSize:     4 << 10,
		MaxReadFrameSize:              64 << 10,
		MaxReceiveBufferPerStream:     1 << 20,
		MaxReceiveBufferPerConnection: 1 << 20,
	}
}
