package webhooksender

import (
	"strconv"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/check/webhooks"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
)

var (
	t0  = time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	key = []byte("0123456789abcdef0123456789abcdef")
)

// at builds attempts received offs after t0, all of one event.
func at(offs ...time.Duration) []attempt {
	var as []attempt
	for _, o := range offs {
		as = append(as, attempt{at: t0.Add(o), id: "msg_1", status: 500})
	}
	return as
}

func TestJudgeBackoff(t *testing.T) {
	t.Parallel()
	wait := func(n int) time.Duration {
		return []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}[min(n, 2)-1]
	}
	slack := 20 * time.Millisecond
	for _, tc := range []struct {
		name   string
		as     []attempt
		want   reports.Status
		margin time.Duration
	}{
		{"on schedule", at(0, 150*time.Millisecond, 400*time.Millisecond), reports.StatusPass, 0},
		{"within slack", at(0, 85*time.Millisecond, 270*time.Millisecond), reports.StatusPass, 0},
		{"last repeated", at(0, 100*time.Millisecond, 300*time.Millisecond, 500*time.Millisecond), reports.StatusPass, 0},
		{"first too soon", at(0, 10*time.Millisecond, 300*time.Millisecond), reports.StatusFail, 70 * time.Millisecond},
		{"second too soon", at(0, 100*time.Millisecond, 150*time.Millisecond), reports.StatusFail, 130 * time.Millisecond},
		{"at once", at(0, 0, 0), reports.StatusFail, 180 * time.Millisecond},
	} {
		r := judgeBackoff(tc.as, wait, slack)
		if r.Status != tc.want || r.Margin != tc.margin {
			t.Errorf("%s: %s margin %s (%s); want %s margin %s", tc.name, r.Status, r.Margin, r.Observed, tc.want, tc.margin)
		}
	}
}

func TestJudgeRetryAfter(t *testing.T) {
	t.Parallel()
	slack := 50 * time.Millisecond
	for _, tc := range []struct {
		name string
		as   []attempt
		want reports.Status
	}{
		{"waited", at(0, 1100*time.Millisecond), reports.StatusPass},
		{"within slack", at(0, 960*time.Millisecond), reports.StatusPass},
		{"early", at(0, 200*time.Millisecond), reports.StatusFail},
		{"no retry", at(0), reports.StatusInconclusive},
	} {
		r := judgeRetryAfter(tc.as, 429, time.Second, slack)
		if r.Status != tc.want {
			t.Errorf("%s: %s (%s%s); want %s", tc.name, r.Status, r.Observed, r.Reason, tc.want)
		}
		if r.Status == reports.StatusFail && r.Margin != 750*time.Millisecond {
			t.Errorf("%s: margin %s; want 750ms", tc.name, r.Margin)
		}
	}
}

func TestJudgeBound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		n    int
		want reports.Status
	}{
		{"at the bound", 3, reports.StatusPass},
		{"one too many", 4, reports.StatusFail},
		{"gave up early", 2, reports.StatusInconclusive},
	} {
		as := at(make([]time.Duration, tc.n)...)
		if r := judgeBound(as, 3, time.Second); r.Status != tc.want {
			t.Errorf("%s: %s (%s%s); want %s", tc.name, r.Status, r.Observed, r.Reason, tc.want)
		} else if r.Status == reports.StatusFail && r.Margin != check.NotTimed {
			t.Errorf("%s: margin %s; a count is not timed", tc.name, r.Margin)
		}
	}
}

func TestJudgeGone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		as   []attempt
		want reports.Status
	}{
		{"stopped", at(0), reports.StatusPass},
		{"retried", at(0, time.Second), reports.StatusFail},
		{"nothing came", nil, reports.StatusInconclusive},
	} {
		if r := judgeGone(tc.as, time.Second); r.Status != tc.want {
			t.Errorf("%s: %s (%s%s); want %s", tc.name, r.Status, r.Observed, r.Reason, tc.want)
		}
	}
}

func TestJudgeRetried(t *testing.T) {
	t.Parallel()
	if r := judgeRetried(at(0, 100*time.Millisecond), "500", 100*time.Millisecond, time.Second); r.Status != reports.StatusPass {
		t.Errorf("a retry: %s", r.Status)
	}
	r := judgeRetried(at(0), "500", 100*time.Millisecond, 1200*time.Millisecond)
	if r.Status != reports.StatusFail || r.Margin != 1100*time.Millisecond {
		t.Errorf("no retry: %s margin %s; want fail margin 1.1s", r.Status, r.Margin)
	}
	if r := judgeRetried(at(0, 1500*time.Millisecond), "no answer", 100*time.Millisecond, time.Second); r.Status != reports.StatusFail || r.Margin != 500*time.Millisecond {
		t.Errorf("a retry only after the endpoint gave up: %s margin %s; want fail margin 500ms", r.Status, r.Margin)
	}
	if r := judgeRetried(nil, "500", 0, time.Second); r.Status != reports.StatusInconclusive {
		t.Errorf("no delivery: %s", r.Status)
	}
}

func TestJudgeSameID(t *testing.T) {
	t.Parallel()
	as := at(0, time.Second)
	if r := judgeSameID(as); r.Status != reports.StatusPass {
		t.Errorf("same id: %s", r.Status)
	}
	as[1].id = "msg_2"
	if r := judgeSameID(as); r.Status != reports.StatusFail || r.Margin != check.NotTimed {
		t.Errorf("new id: %s margin %s", r.Status, r.Margin)
	}
	as[0].id, as[1].id = "", ""
	if r := judgeSameID(as); r.Status != reports.StatusFail {
		t.Errorf("no id: %s", r.Status)
	}
}

// signedAt is an attempt of body signed at ts as Standard Webhooks says.
func signedAt(body []byte, ts time.Time) attempt {
	return attempt{at: ts, id: "msg_1", ts: strconv.FormatInt(ts.Unix(), 10), sig: webhooks.Sign(key, "msg_1", ts, body)}
}

func TestJudgeSigned(t *testing.T) {
	t.Parallel()
	body := []byte(`{"type":"payment.succeeded"}`)
	fresh := func() []attempt { return []attempt{signedAt(body, t0), signedAt(body, t0.Add(5*time.Second))} }
	for _, tc := range []struct {
		name   string
		mutate func(as []attempt)
		want   reports.Status
	}{
		{"each signed over its own timestamp", func([]attempt) {}, reports.StatusPass},
		{"rotated: one of two valid", func(as []attempt) { as[1].sig = "v1,AAAA " + as[1].sig }, reports.StatusPass},
		{"retry unsigned", func(as []attempt) { as[1].sig = "" }, reports.StatusFail},
		{"retry with the first's signature", func(as []attempt) { as[1].sig = as[0].sig }, reports.StatusFail},
		{"no timestamp", func(as []attempt) { as[0].ts = "" }, reports.StatusFail},
		{"timestamp not seconds", func(as []attempt) { as[0].ts = "2026-11-27" }, reports.StatusFail},
	} {
		as := fresh()
		tc.mutate(as)
		if r := judgeSigned(as, key, body); r.Status != tc.want {
			t.Errorf("%s: %s (%s); want %s", tc.name, r.Status, r.Observed, tc.want)
		}
	}
}

// TestAttemptsOf: the event is the first body after the trigger not seen
// before it; another event's late retries are left out, and attempts are
// ordered by receipt, not by finishing.
func TestAttemptsOf(t *testing.T) {
	t.Parallel()
	e := func(off time.Duration, body, id string) faults.Entry {
		return faults.Entry{Received: t0.Add(off), BodySHA256: body, Headers: map[string]string{"Webhook-Id": id}}
	}
	es := []faults.Entry{e(0, "old", "msg_0"), e(300*time.Millisecond, "new", "msg_2"), e(100*time.Millisecond, "new", "msg_1"), e(50*time.Millisecond, "", "")}
	as := attemptsOf(es, map[string]bool{"old": true})
	if len(as) != 2 || as[0].id != "msg_1" || as[1].id != "msg_2" {
		t.Errorf("attempts = %+v; want msg_1 then msg_2", as)
	}
}

func TestConfig_retryAfter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cfg   Config
		first time.Duration
		want  time.Duration
	}{
		{Config{}, 100 * time.Millisecond, time.Second},
		{Config{}, 0, time.Second},
		{Config{}, 700 * time.Millisecond, 2 * time.Second},
		{Config{}, 2 * time.Second, 4 * time.Second},
		{Config{}, 2100 * time.Millisecond, 5 * time.Second},
		{Config{RetryAfter: 3 * time.Second}, 100 * time.Millisecond, 3 * time.Second},
	} {
		if got := tc.cfg.retryAfter(tc.first); got != tc.want {
			t.Errorf("%+v.retryAfter(%s) = %s; want %s", tc.cfg, tc.first, got, tc.want)
		}
	}
}

func TestWebhookSenderPolicy_Wait(t *testing.T) {
	t.Parallel()
	p := check.WebhookSenderPolicy{Backoff: []time.Duration{time.Second, 2 * time.Second}}
	for n, want := range map[int]time.Duration{0: 0, 1: time.Second, 2: 2 * time.Second, 5: 2 * time.Second} {
		if got := p.Wait(n); got != want {
			t.Errorf("Wait(%d) = %s; want %s", n, got, want)
		}
	}
	if got := (check.WebhookSenderPolicy{}).Wait(1); got != 0 {
		t.Errorf("no backoff: Wait(1) = %s", got)
	}
}

func TestJudgeSpread(t *testing.T) {
	t.Parallel()
	// events builds evs from each event's first wait; -1 means not retried.
	events := func(waits ...time.Duration) [][]attempt {
		var evs [][]attempt
		for i, w := range waits {
			start := time.Duration(i) * 3 * time.Millisecond // first attempts spread by the triggers
			if w < 0 {
				evs = append(evs, at(start))
				continue
			}
			evs = append(evs, at(start, start+w))
		}
		return evs
	}
	// held builds evs whose first attempts arrive 5 ms apart and are all
	// answered at release, each retried its wait after that answer.
	held := func(release time.Duration, waits ...time.Duration) [][]attempt {
		var evs [][]attempt
		for i, w := range waits {
			as := at(time.Duration(i)*5*time.Millisecond, release+w)
			as[0].entry.Finished = t0.Add(release)
			evs = append(evs, as)
		}
		return evs
	}
	ms := time.Millisecond
	for _, tc := range []struct {
		name  string
		evs   [][]attempt
		want  reports.Status
		quiet bool
		noisy bool // judged again
	}{
		{"jittered", events(100*ms, 112*ms, 125*ms, 131*ms, 140*ms, 104*ms, 118*ms, 147*ms), reports.StatusPass, false, false},
		{"lockstep", events(100*ms, 100*ms, 101*ms, 102*ms, 100*ms, 103*ms, 101*ms, 100*ms), reports.StatusFail, false, false},
		{"lockstep but one", events(100*ms, 100*ms, 101*ms, 102*ms, 100*ms, 103*ms, 101*ms, 140*ms), reports.StatusFail, false, false},
		{"bunched: trusted from a quiet run only", events(100*ms, 101*ms, 102*ms, 103*ms, 104*ms, 130*ms, 140*ms, 150*ms), reports.StatusPass, true, false},
		{"too few retried", events(100*ms, 100*ms, 100*ms, -1, -1, -1, -1, -1), reports.StatusInconclusive, false, false},
		{"held together: lockstep from the answer", held(40*ms, 100*ms, 100*ms, 101*ms, 102*ms, 100*ms, 103*ms, 101*ms, 100*ms), reports.StatusFail, false, false},
		{"held together: jittered from the answer", held(40*ms, 100*ms, 112*ms, 125*ms, 131*ms, 140*ms, 104*ms, 118*ms, 147*ms), reports.StatusPass, false, false},
		// First deliveries 35 ms apart say handling alone spreads events
		// that much: waits within 25 ms of each other are not jitter.
		{"held together: spread no more than handling", held(40*ms, 100*ms, 103*ms, 106*ms, 109*ms, 112*ms, 115*ms, 118*ms, 121*ms), reports.StatusInconclusive, false, true},
	} {
		r := judgeSpread(tc.evs, 8, 10*ms)
		if r.Status != tc.want || (r.Quiet > 0) != tc.quiet || r.Noisy != tc.noisy {
			t.Errorf("%s: %s quiet %s noisy %v (%s%s); want %s quiet %v noisy %v", tc.name, r.Status, r.Quiet, r.Noisy, r.Observed, r.Reason, tc.want, tc.quiet, tc.noisy)
		}
	}
	// A CI run: sixteen events retried 200 ms after their failures by a
	// starved sender, first waits 202 to 260 ms, 11 in the busiest 40 ms;
	// first deliveries 2.5 ms apart (37.5 ms in all). A wait carries the
	// sender's handling twice, so 75 ms of it explain them: judged again,
	// where a window of the first deliveries' span alone let them pass.
	var evs [][]attempt
	for i, w := range []time.Duration{202, 205, 207, 210, 213, 215, 218, 222, 226, 233, 240, 244, 248, 251, 255, 260} {
		as := at(time.Duration(i)*5*ms/2, 300*ms+w*ms)
		as[0].entry.Finished = t0.Add(300 * ms)
		evs = append(evs, as)
	}
	if r := judgeSpread(evs, 16, 40*ms); r.Status != reports.StatusInconclusive || !r.Noisy {
		t.Errorf("starved sender: %s noisy %v (%s%s); want inconclusive, judged again", r.Status, r.Noisy, r.Observed, r.Reason)
	}
}

func TestMaxInWindow(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	for _, tc := range []struct {
		ds   []time.Duration
		want int
	}{
		{nil, 0},
		{[]time.Duration{5 * ms}, 1},
		{[]time.Duration{0, 10 * ms, 11 * ms, 30 * ms}, 2},
		{[]time.Duration{0, 1 * ms, 2 * ms, 9 * ms, 25 * ms}, 4},
	} {
		if got := maxInWindow(tc.ds, 10*ms); got != tc.want {
			t.Errorf("maxInWindow(%v) = %d; want %d", tc.ds, got, tc.want)
		}
	}
}

func TestJudgeRecovery(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	recovered := t0.Add(200 * ms)
	// backlog builds 8 events: each failed at 10 ms apart before the
	// recovery, then delivered again after[i] past it (-1: not again).
	backlog := func(after ...time.Duration) [][]attempt {
		var evs [][]attempt
		for i, a := range after {
			start := time.Duration(i) * 10 * ms
			if a < 0 {
				evs = append(evs, at(start))
				continue
			}
			evs = append(evs, at(start, 200*ms+a))
		}
		return evs
	}
	for _, tc := range []struct {
		name string
		evs  [][]attempt
		want reports.Status
	}{
		{"own schedules", backlog(5*ms, 20*ms, 38*ms, 51*ms, 70*ms, 86*ms, 99*ms, 120*ms), reports.StatusPass},
		{"flushed at the first success", backlog(40*ms, 41*ms, 41*ms, 42*ms, 42*ms, 43*ms, 44*ms, 90*ms), reports.StatusFail},
		{"too few again", backlog(40*ms, 41*ms, 41*ms, -1, -1, -1, -1, -1), reports.StatusInconclusive},
		{"not all emitted", backlog(5*ms, 20*ms, 38*ms, 51*ms), reports.StatusInconclusive},
	} {
		if r := judgeRecovery(tc.evs, 8, recovered, 10*ms); r.Status != tc.want {
			t.Errorf("%s: %s (%s%s); want %s", tc.name, r.Status, r.Observed, r.Reason, tc.want)
		}
	}
}
