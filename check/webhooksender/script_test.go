package webhooksender

import (
	"net/http"
	"strings"
	"testing"

	"github.com/resilcheck/resilcheck/faults"
)

// TestScript_Inject: the script fails the first n deliveries of each of
// its events, the first ones whose body it had not seen, and passes every
// other delivery, an earlier event's late retry included.
func TestScript_Inject(t *testing.T) {
	t.Parallel()
	p := acceptingProxy(t)
	s := &script{seen: map[string]bool{digest([]byte("old")): true}, events: 2, n: 2, fault: faults.Abort{Status: http.StatusInternalServerError}}
	if err := p.Rules().Add(faults.Rule{Name: "script", Fault: s}); err != nil {
		t.Fatal(err)
	}
	post := func(body string) int {
		resp, err := http.Post(p.URL()+"/hooks", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for i, step := range []struct {
		body string
		want int
	}{
		{"old", 200}, {"a", 500}, {"b", 500}, {"c", 200}, {"a", 500}, {"a", 200}, {"b", 500}, {"b", 200}, {"old", 200},
	} {
		if got := post(step.body); got != step.want {
			t.Errorf("delivery %d (%s) = %d; want %d", i+1, step.body, got, step.want)
		}
	}
}

// acceptingProxy is a started proxy whose stand-in accepts every delivery
// with 200, closed when t ends.
func acceptingProxy(t *testing.T) *faults.Proxy {
	t.Helper()
	p, err := faults.NewProxy(faults.WithStandIn(faults.Respond{Status: http.StatusOK}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}
