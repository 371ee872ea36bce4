package certify

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
)

// childEnv makes the test binary act as a process target instead of running
// tests (see child).
const childEnv = "RESILCHECK_CERTIFY_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(child(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// child is a payments service and its real processor in one process. Args:
// the service's address, the processor's; $PROCESSOR_ADDR must be the
// processor's too, and $PROCESSOR_URL is where the service calls it.
func child(args []string) int {
	if len(args) != 2 || os.Getenv("PROCESSOR_ADDR") != args[1] {
		fmt.Fprintf(os.Stderr, "child: args %q, PROCESSOR_ADDR %q: want the same processor address\n", args, os.Getenv("PROCESSOR_ADDR"))
		return 2
	}
	processor, err := net.Listen("tcp", args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	go func() {
		_ = http.Serve(processor, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, `{"id": "ch_1"}`)
		}))
	}()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	service := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/payments" {
			return
		}
		req, _ := http.NewRequestWithContext(r.Context(), http.MethodPost, os.Getenv("PROCESSOR_URL")+"/charges", r.Body)
		req.Header.Set("Idempotency-Key", r.Header.Get("Idempotency-Key"))
		resp, err := client.Do(req)
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	})
	if err := http.ListenAndServe(args[0], service); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	return 1
}
