package checktest

import (
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// Stack is a fake target on loopback between a front proxy and a
// dependency proxy whose stand-in charges, sharing one journal. URL is the
// front proxy's: requests to the target go through it.
type Stack struct {
	Journal           *faults.Journal
	Front, Dependency *faults.Proxy
	URL               string
}

// Start starts the dependency proxy, stores its URL in *depURL for the fake
// to call, then serves fake behind the front proxy. Every charge is
// answered 201 with {"id":"ch_1"}; everything stops when the test ends.
func Start(t testing.TB, fake http.Handler, depURL *string) Stack {
	t.Helper()
	return StartCharging(t, fake, depURL, `{"id":"ch_1"}`)
}

// StartCharging is Start with body as the stand-in's answer to a charge.
func StartCharging(t testing.TB, fake http.Handler, depURL *string, body string) Stack {
	t.Helper()
	j := faults.NewJournal()
	dep, err := faults.NewProxy(faults.WithSide("dependency"), faults.WithJournal(j), faults.WithSeed(1),
		faults.WithStandIn(faults.Respond{Status: http.StatusCreated, Body: body}))
	if err != nil {
		t.Fatal(err)
	}
	if *depURL, err = dep.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dep.Close() })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: fake, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	u, _ := url.Parse("http://" + l.Addr().String())
	front, err := faults.NewProxy(faults.WithUpstream(u), faults.WithSide("front"), faults.WithJournal(j), faults.WithSeed(1))
	if err != nil {
		t.Fatal(err)
	}
	frontURL, err := front.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = front.Close() })
	return Stack{Journal: j, Front: front, Dependency: dep, URL: frontURL}
}

// Harness is a harness on the stack with seed 1: set the Operation (and the
// conventions and policy the fake declares) before judging a check on it.
func (s Stack) Harness() *check.Harness {
	return &check.Harness{TargetURL: s.URL, Front: s.Front, Dependency: s.Dependency, Journal: s.Journal, Seed: 1}
}
