package certify

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// sink is the endpoint a webhook sender delivers to, behind the proxy that
// fails deliveries: it accepts every delivery with 200 and keeps its body
// by journal digest, so a check can verify the signature of an attempt the
// proxy answered itself (an event's attempts carry one body).
type sink struct {
	srv *http.Server
	url string

	mu     sync.Mutex
	bodies map[string][]byte
	order  []string // digests, oldest first
}

// maxSinkBodies bounds the bodies a sink keeps, the oldest dropped first:
// a check reads its own event's body within seconds, and a sender that
// emits an event per call of another suite's load must not grow it.
const maxSinkBodies = 4096

// startSink serves a sink on a free loopback port.
func startSink() (*sink, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("%w: webhook endpoint: %w", ErrUnhealthy, err)
	}
	s := &sink{url: "http://" + l.Addr().String(), bodies: map[string][]byte{}}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(l) }()
	return s, nil
}

// ServeHTTP keeps the delivery's body and accepts it.
func (s *sink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err == nil && len(body) > 0 {
		sum := sha256.Sum256(body)
		s.keep(hex.EncodeToString(sum[:16]), body)
	}
	w.WriteHeader(http.StatusOK)
}

// keep stores body under digest, dropping the oldest past maxSinkBodies.
func (s *sink) keep(digest string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.bodies[digest]; ok {
		return
	}
	s.bodies[digest] = body
	s.order = append(s.order, digest)
	if len(s.order) > maxSinkBodies {
		delete(s.bodies, s.order[0])
		s.order = s.order[1:]
	}
}

// body returns the body received with digest.
func (s *sink) body(digest string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.bodies[digest]
	return b, ok
}

func (s *sink) close() { _ = s.srv.Close() }
