package amplification

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/check/checktest"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
)

// rbFake is a service that charges its dependency with up to 3 attempts,
// waiting 5 ms between them or the Retry-After asked for. perKind is the
// retry-cap-per-failure-kind bug: the cap counts only the attempts since
// the failure last changed kind.
type rbFake struct {
	dep     string
	perKind bool
	// slowIsFailure retries a success that took over 150 ms, as a client
	// that judges latency after the fact would: it read the answer.
	slowIsFailure bool
	client        http.Client
}

func (f *rbFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	var kind string
	for n, streak := 1, 0; ; n++ {
		// A body net/http cannot rewind: it would otherwise replay a keyed
		// request that met a reset on a reused connection, a call the fake
		// did not count.
		req, _ := http.NewRequestWithContext(r.Context(), http.MethodPost, f.dep+"/charges", io.NopCloser(strings.NewReader("{}")))
		req.ContentLength = 2
		req.Header.Set("Idempotency-Key", key)
		sent := time.Now()
		resp, err := f.client.Do(req)
		now, wait := "transport", 5*time.Millisecond
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode < 300 && f.slowIsFailure && time.Since(sent) > 150*time.Millisecond {
				resp.StatusCode = http.StatusGatewayTimeout // judged too slow, after reading it
			}
			if resp.StatusCode < 300 {
				w.WriteHeader(http.StatusCreated)
				return
			}
			now = strconv.Itoa(resp.StatusCode)
			if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
				wait = time.Duration(s) * time.Second
			}
		}
		if now != kind {
			kind, streak = now, 0
		}
		streak++
		if count := map[bool]int{false: n, true: streak}[f.perKind]; count >= 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		time.Sleep(wait)
	}
}

func rbFakeHarness(t *testing.T, f *rbFake) *check.Harness {
	t.Helper()
	f.client.Timeout = 300 * time.Millisecond // a hang is a transport failure
	// One connection at a time: a call after an answer the fake read takes
	// the connection back from the pool, never a fresh dial that raced it.
	f.client.Transport = &http.Transport{MaxConnsPerHost: 1}
	st := checktest.Start(t, f, &f.dep)
	return &check.Harness{
		TargetURL: st.URL, Front: st.Front, Dependency: st.Dependency, Journal: st.Journal, Seed: 1,
		Explore: time.Second,
		Suites:  []check.Suite{Suite(Config{})},
		Operation: check.Operation{Method: http.MethodPost, Path: "/v1/payments", EffectPath: "/charges",
			Render: func(v check.Values, _ bool) ([]byte, error) { return fmt.Appendf(nil, `{"amount":%d}`, v.Amount), nil }},
	}
}

func TestRetryProperty_catchesCapPerKind(t *testing.T) {
	if testing.Short() {
		t.Skip("explores for a second or more against a fake")
	}
	chk := check.Check{ID: "RB-01p", Run: retryProperty}
	good := check.Judge(context.Background(), rbFakeHarness(t, &rbFake{}), chk)
	if good.Status != reports.StatusPass {
		t.Fatalf("correct fake: %s %s%s; want a pass", good.Status, good.Observed, good.Reason)
	}
	bad := check.Judge(context.Background(), rbFakeHarness(t, &rbFake{perKind: true}), chk)
	if bad.Status != reports.StatusFail || !strings.Contains(bad.Observed, "above the attempt cap") || len(bad.Counterexample) == 0 {
		t.Fatalf("per-kind fake: %s %s%s; want a failure above the cap", bad.Status, bad.Observed, bad.Reason)
	}
	again := check.Judge(context.Background(), rbFakeHarness(t, &rbFake{perKind: true}), chk)
	if !slices.Equal(again.Counterexample, bad.Counterexample) {
		t.Errorf("the same seed told\n%s\nthen\n%s", strings.Join(bad.Counterexample, "\n"), strings.Join(again.Counterexample, "\n"))
	}
	// The reproduce line's replay: exactly the cases up to the failing one,
	// no time budget.
	h := rbFakeHarness(t, &rbFake{perKind: true})
	h.Explore, h.ExploreCases = 0, bad.FailedCase
	byCount := check.Judge(context.Background(), h, chk)
	if bad.FailedCase == 0 || byCount.FailedCase != bad.FailedCase || !slices.Equal(byCount.Counterexample, bad.Counterexample) {
		t.Errorf("replaying %d cases failed at case %d telling\n%s\nwant\n%s", bad.FailedCase, byCount.FailedCase,
			strings.Join(byCount.Counterexample, "\n"), strings.Join(bad.Counterexample, "\n"))
	}
	t.Logf("story (case %d):\n%s", bad.FailedCase, strings.Join(bad.Counterexample, "\n"))
}

// TestRetryProperty_afterSlowSuccess: a target that read a slow success
// and called again fails; one whose attempt timed out before the answer
// came retries rightly and passes. Both run the same 12 cases.
func TestRetryProperty_afterSlowSuccess(t *testing.T) {
	if testing.Short() {
		t.Skip("explores a dozen cases against a fake")
	}
	chk := check.Check{ID: "RB-01p", Run: retryProperty}
	var h *check.Harness
	run := func(f *rbFake, timeout time.Duration) check.Result {
		h = rbFakeHarness(t, f)
		f.client.Timeout = timeout
		h.Explore, h.ExploreCases = 0, 12
		return check.Judge(context.Background(), h, chk)
	}
	bad := run(&rbFake{slowIsFailure: true}, 300*time.Millisecond)
	if bad.Status != reports.StatusFail || !strings.Contains(bad.Observed, "had read the slow success") {
		t.Fatalf("a retry after a read success: %s %s%s; want a failure naming it", bad.Status, bad.Observed, bad.Reason)
	}
	if timedOut := run(&rbFake{}, 150*time.Millisecond); timedOut.Status != reports.StatusPass {
		t.Errorf("a retry after a 150 ms attempt timeout: %s %s%s; want a pass", timedOut.Status, timedOut.Observed, timedOut.Reason)
	}
	// The pass means something only if slow successes were met and given up on.
	abandoned := 0
	for _, e := range h.Journal.Snapshot() {
		if e.Side == h.Dependency.Side() && e.Fault == faults.TypeOf(faults.Delay{}) && !e.ClientGone.IsZero() {
			abandoned++
		}
	}
	if abandoned == 0 {
		t.Errorf("the timed-out fake never gave up on a slow success: the pass judged no such retry")
	}
	t.Logf("the timed-out fake gave up on %d slow successes", abandoned)
	t.Logf("story:\n%s", strings.Join(bad.Counterexample, "\n"))
}

func TestReadAnswer(t *testing.T) {
	t0 := time.Unix(1000, 0)
	prev := faults.Entry{Conn: 4, Proto: "HTTP/1.1", Received: t0, Finished: t0.Add(200 * time.Millisecond)}
	h2 := prev
	h2.Proto = "HTTP/2.0"
	gone := prev
	gone.ClientGone = t0.Add(150 * time.Millisecond)
	after := t0.Add(210 * time.Millisecond)
	for _, c := range []struct {
		name       string
		prev, next faults.Entry
		want       bool
	}{
		{"same connection after the answer", prev, faults.Entry{Conn: 4, Proto: "HTTP/1.1", Received: after}, true},
		{"a new connection", prev, faults.Entry{Conn: 5, Proto: "HTTP/1.1", Received: after}, false},
		{"the target left before the answer", gone, faults.Entry{Conn: 4, Proto: "HTTP/1.1", Received: after}, false},
		{"sent while the answer was under way", prev, faults.Entry{Conn: 4, Proto: "HTTP/1.1", Received: t0.Add(100 * time.Millisecond)}, false},
		{"no connection recorded", faults.Entry{Proto: "HTTP/1.1", Received: t0, Finished: prev.Finished}, faults.Entry{Proto: "HTTP/1.1", Received: after}, false},
		{"HTTP/2: a timed-out stream's successor shares the connection", h2, faults.Entry{Conn: 4, Proto: "HTTP/2.0", Received: after}, false},
	} {
		if got := readAnswer(c.prev, c.next); got != c.want {
			t.Errorf("%s: readAnswer = %v; want %v", c.name, got, c.want)
		}
	}
}
