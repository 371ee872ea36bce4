package faults

import (
	"io"
	"net/http"
	"strconv"
	"strings"
)

// noGRPCStatus marks a copy whose gRPC status is not known in
// Entry.UpstreamGRPCStatuses.
const noGRPCStatus = -1

// noteGRPC records the gRPC status of copy i, answered with resp, with
// ex.mu held: at once for a Trailers-Only answer (grpc-status in its
// headers), else once its body was read to the end and the trailers came
// in (resp.Body is wrapped to see that). The list stays nil until a copy
// is a gRPC answer, so an HTTP exchange pays nothing for it.
func (ex *Exchange) noteGRPC(i int, resp *http.Response) {
	e := &ex.entry
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/grpc") {
		ex.noteNoGRPC()
		return
	}
	for len(e.UpstreamGRPCStatuses) < i {
		e.UpstreamGRPCStatuses = append(e.UpstreamGRPCStatuses, noGRPCStatus)
	}
	code := grpcCode(resp.Header.Get("Grpc-Status"))
	e.UpstreamGRPCStatuses = append(e.UpstreamGRPCStatuses, code)
	if code == noGRPCStatus {
		resp.Body = &trailerWatch{ReadCloser: resp.Body, ex: ex, resp: resp, i: i}
	}
}

// noteNoGRPC records a copy that is no gRPC answer, with ex.mu held,
// keeping the list as long as UpstreamStatuses once it exists.
func (ex *Exchange) noteNoGRPC() {
	if e := &ex.entry; e.UpstreamGRPCStatuses != nil {
		e.UpstreamGRPCStatuses = append(e.UpstreamGRPCStatuses, noGRPCStatus)
	}
}

// grpcCode parses a grpc-status value; noGRPCStatus for none or a bad one.
func grpcCode(v string) int {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if v == "" || err != nil || n < 0 {
		return noGRPCStatus
	}
	return n
}

// trailerWatch records copy i's grpc-status from resp's trailers when its
// body ends, as net/http fills them in before it returns io.EOF. A body
// read after the exchange was journaled changes nothing.
type trailerWatch struct {
	io.ReadCloser
	ex   *Exchange
	resp *http.Response
	i    int
}

func (w *trailerWatch) Read(b []byte) (int, error) {
	n, err := w.ReadCloser.Read(b)
	if err == io.EOF {
		code := grpcCode(w.resp.Trailer.Get("Grpc-Status"))
		w.ex.mu.Lock()
		if !w.ex.finished {
			w.ex.entry.UpstreamGRPCStatuses[w.i] = code
		}
		w.ex.mu.Unlock()
	}
	return n, err
}
