package payments_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/internal/pgtest"
	"github.com/resilcheck/resilcheck/internal/reference/payments"
	"github.com/resilcheck/resilcheck/internal/reference/processor"
	"github.com/resilcheck/resilcheck/internal/reference/store"
)

// storeKinds are the backends every idempotency behaviour runs against.
var storeKinds = []string{"sqlite", "postgres"}

// storeURL returns a fresh database of kind for t (postgres skips without a server).
func storeURL(t *testing.T, kind string) string {
	t.Helper()
	switch kind {
	case "sqlite":
		return "sqlite:" + filepath.Join(t.TempDir(), "payments.db")
	case "postgres":
		return pgtest.DSN(t)
	}
	t.Fatalf("unknown store kind %q", kind)
	return ""
}

func openStore(t *testing.T, kind string) store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), storeURL(t, kind))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// forEachStore runs fn as a subtest per store backend.
func forEachStore(t *testing.T, fn func(t *testing.T, st store.Store)) {
	for _, kind := range storeKinds {
		t.Run(kind, func(t *testing.T) { fn(t, openStore(t, kind)) })
	}
}

// startProcessor serves a real processor on loopback.
func startProcessor(t *testing.T, opts ...processor.Option) (*processor.Processor, string) {
	t.Helper()
	p, err := processor.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return p, srv.URL
}

// startService serves the payments service on loopback.
func startService(t *testing.T, st store.Store, processorURL string, opts ...payments.Option) string {
	t.Helper()
	u, _ := startServer(t, st, processorURL, opts...)
	return u
}

// startServer is startService that also returns the Server.
func startServer(t *testing.T, st store.Store, processorURL string, opts ...payments.Option) (string, *payments.Server) {
	t.Helper()
	opts = append([]payments.Option{payments.WithStore(st), payments.WithProcessorURL(processorURL), payments.WithSeed(1)}, opts...)
	s, err := payments.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(func() { srv.Close(); s.Close() })
	return srv.URL, s
}

// resp is an answer read in full.
type resp struct {
	status int
	header http.Header
	body   string
}

func (r resp) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.body), &m); err != nil {
		t.Fatalf("body %q: %v", r.body, err)
	}
	return m
}

// call sends a request; hdr holds extra header lines (a nil value deletes).
func call(t testing.TB, method, url, body string, hdr map[string]string) resp {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return resp{r.StatusCode, r.Header, string(b)}
}

func pay(t testing.TB, svc, key, body string, hdr ...string) resp {
	t.Helper()
	h := map[string]string{}
	if key != "" {
		h["Idempotency-Key"] = key
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		h[hdr[i]] = hdr[i+1]
	}
	return call(t, http.MethodPost, svc+"/v1/payments", body, h)
}

// wantProblem checks an RFC 9457 answer with a documentation type URI.
func wantProblem(t *testing.T, r resp, status int) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %s", r.status, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type %q, want application/problem+json", ct)
	}
	m := r.json(t)
	if typ, _ := m["type"].(string); !strings.HasPrefix(typ, payments.ProblemBase) || m["title"] == "" || m["detail"] == "" || m["status"] != float64(status) {
		t.Errorf("problem %s lacks type URI/title/detail/status", r.body)
	}
}

// recorder is a loopback downstream in front of a real processor that
// records every attempt and can replace answers.
type recorder struct {
	proc   http.Handler
	events chan event
	// answer, when non-nil, may answer attempt n (from 1) itself; returning
	// false passes it to the processor.
	answer func(n int, w http.ResponseWriter, r *http.Request) bool
	n      atomic.Int64
}

type event struct {
	n       int
	at      time.Time
	header  http.Header
	done    time.Time // when the handler returned
	aborted bool      // the caller cancelled while the handler held the request
}

func startRecorder(t *testing.T, proc http.Handler, answer func(n int, w http.ResponseWriter, r *http.Request) bool) (*recorder, string) {
	t.Helper()
	rec := &recorder{proc: proc, answer: answer, events: make(chan event, 1000)}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	return rec, srv.URL
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/charges" {
		rc.proc.ServeHTTP(w, r)
		return
	}
	ev := event{n: int(rc.n.Add(1)), at: time.Now(), header: r.Header.Clone()}
	// Read the body first: only then does net/http watch the connection and
	// cancel r.Context() when the caller goes away.
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	if rc.answer == nil || !rc.answer(ev.n, w, r) {
		rc.proc.ServeHTTP(w, r)
	}
	ev.done, ev.aborted = time.Now(), r.Context().Err() != nil
	rc.events <- ev
}

// wait returns the first n attempts, waiting for their handlers to finish.
func (rc *recorder) wait(t *testing.T, n int) []event {
	t.Helper()
	var out []event
	timeout := time.After(10 * time.Second)
	for len(out) < n {
		select {
		case e := <-rc.events:
			out = append(out, e)
		case <-timeout:
			t.Fatalf("processor saw %d attempts, want %d", len(out), n)
		}
	}
	return out
}

// drain returns the attempts recorded so far.
func (rc *recorder) drain() []event {
	var out []event
	for {
		select {
		case e := <-rc.events:
			out = append(out, e)
		default:
			return out
		}
	}
}
