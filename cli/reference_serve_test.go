package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServeUntilDone_protocols: a part run alone speaks HTTP/1.1, and h2c
// besides only when asked (the service, for its gRPC face): the gateway
// and the processor speak HTTP/1.1 alone, as they do in the stack.
func TestServeUntilDone_protocols(t *testing.T) {
	t.Parallel()
	for _, h2c := range []bool{false, true} {
		t.Run(fmt.Sprint("h2c=", h2c), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(t.Context())
			pr, pw := io.Pipe()
			done := make(chan error, 1)
			h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
			go func() {
				err := serveUntilDone(ctx, pw, "part", "127.0.0.1:0", h, h2c)
				pw.CloseWithError(err)
				done <- err
			}()
			line, err := bufio.NewReader(pr).ReadString('\n')
			if err != nil {
				t.Fatalf("no URL printed: %v", err)
			}
			url := strings.TrimSpace(strings.TrimPrefix(line, "part "))
			t.Cleanup(func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("serveUntilDone: %v", err)
				}
			})

			h1 := &http.Transport{}
			defer h1.CloseIdleConnections()
			if code, proto, err := getOver(h1, url); err != nil || code != http.StatusNoContent || proto != 1 {
				t.Errorf("HTTP/1.1: %d over HTTP/%d, %v; want 204 over HTTP/1", code, proto, err)
			}
			h2 := &http.Transport{Protocols: new(http.Protocols)}
			h2.Protocols.SetUnencryptedHTTP2(true)
			defer h2.CloseIdleConnections()
			code, proto, err := getOver(h2, url)
			switch {
			case h2c && (err != nil || code != http.StatusNoContent || proto != 2):
				t.Errorf("h2c: %d over HTTP/%d, %v; want 204 over HTTP/2", code, proto, err)
			case !h2c && err == nil:
				t.Errorf("h2c answered %d over HTTP/%d; want HTTP/1.1 alone", code, proto)
			}
		})
	}
}

// getOver sends GET url through tr and returns the status and the major
// version of the protocol it was answered in.
func getOver(tr *http.Transport, url string) (int, int, error) {
	c := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.ProtoMajor, nil
}
