package ratelimit

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/headers"
	"github.com/resilcheck/resilcheck/reports"
)

var rlEpoch = time.Unix(1_800_000_000, 0)

// rlResp builds a response observed at ms after rlEpoch advertising r, with
// the reset at the next whole second (as the reference does).
func rlResp(status int, ms int, r int64) check.Observation {
	at := rlEpoch.Add(time.Duration(ms) * time.Millisecond)
	reset := at.Truncate(time.Second).Add(time.Second)
	h := http.Header{}
	h.Set("Date", at.UTC().Format(http.TimeFormat))
	h.Set(headers.RateLimitPolicy, `"t";q=50;w=1`)
	h.Set(headers.RateLimit, headers.FormatRateLimit("t", r, reset.Sub(at)))
	h.Set(headers.XRateLimitRemaining, strconv.FormatInt(r, 10))
	h.Set(headers.XRateLimitReset, strconv.FormatInt(reset.Unix(), 10))
	o := check.Observe(h, at)
	o.Status = status
	return o
}

func TestJudgeSequence(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		obs  []check.Observation
		bad  string // substring of the first violation; "" for none
	}{
		{"truthful countdown then refusal", []check.Observation{rlResp(200, 100, 2), rlResp(200, 110, 1), rlResp(200, 120, 0), rlResp(429, 130, 0)}, ""},
		{"refill at the boundary", []check.Observation{rlResp(200, 900, 0), rlResp(200, 1010, 49)}, ""},
		{"rise within the window", []check.Observation{rlResp(200, 100, 3), rlResp(200, 200, 5)}, "r rose from 3 to 5"},
		{"429 after r>0", []check.Observation{rlResp(200, 100, 25), rlResp(429, 110, 25)}, "429 right after a 200 that advertised r=25"},
	}
	for _, c := range cases {
		bad := judgeSequence(c.obs, true)
		switch {
		case c.bad == "" && len(bad) > 0:
			t.Errorf("%s: violations %v; want none", c.name, bad)
		case c.bad != "" && (len(bad) == 0 || !strings.Contains(bad[0], c.bad)):
			t.Errorf("%s: violations %v; want %q", c.name, bad, c.bad)
		}
	}
}

func TestDisagreement(t *testing.T) {
	t.Parallel()
	o := rlResp(200, 300, 7)
	if msg := disagreement(o, time.Second+50*time.Millisecond); msg != "" {
		t.Errorf("agreeing fields: %q", msg)
	}
	o.Header.Set(headers.XRateLimitRemaining, "9")
	o.X, o.XErr = headers.ParseXRateLimit(o.Header, o.At)
	if msg := disagreement(o, time.Second); !strings.Contains(msg, "Remaining 9 but r=7") {
		t.Errorf("remaining mismatch: %q", msg)
	}
	// Fields computed on arrival of a request answered 2 s later still agree.
	o = rlResp(200, 300, 7)
	o.Sent, o.At = o.At, o.At.Add(2*time.Second)
	o.X, o.XErr = headers.ParseXRateLimit(o.Header, o.At)
	if msg := disagreement(o, time.Second+50*time.Millisecond); msg != "" {
		t.Errorf("slow response: %q", msg)
	}
	o = rlResp(200, 300, 7)
	o.Header.Set(headers.XRateLimitReset, strconv.FormatInt(rlEpoch.Unix()+5, 10))
	o.X, o.XErr = headers.ParseXRateLimit(o.Header, o.At)
	if msg := disagreement(o, time.Second); !strings.Contains(msg, "epoch-seconds") {
		t.Errorf("reset mismatch: %q", msg)
	}
}

// hitsAt builds a load at rate per second for secs seconds against a
// bucket of q per second crediting at whole seconds, phase-shifted.
func hitsAt(rate, q, secs int, phase time.Duration, admit func(sec, n int) bool) []hit {
	var out []hit
	used := map[int]int{}
	for i := range rate * secs {
		at := rlEpoch.Add(phase + time.Duration(i)*time.Second/time.Duration(rate))
		sec := int(at.Sub(rlEpoch) / time.Second)
		code := http.StatusTooManyRequests
		if admit(sec, used[sec]) {
			used[sec]++
			code = http.StatusOK
		}
		out = append(out, hit{at: at, code: code})
	}
	return out
}

func TestJudgeWindows(t *testing.T) {
	t.Parallel()
	p := headers.Policy{Quota: 50, Window: time.Second, Unit: headers.UnitRequests}
	honest := func(sec, n int) bool { return n < 50 || sec == 0 && n < 100 } // burst, then q per second
	loose := func(sec, n int) bool { return n < 60 || sec == 0 && n < 100 }
	cases := []struct {
		name string
		hits []hit
		want reports.Status
	}{
		{"enforces q", hitsAt(100, 50, 6, 370*time.Millisecond, honest), reports.StatusPass},
		{"admits 20% more", hitsAt(100, 50, 6, 370*time.Millisecond, loose), reports.StatusFail},
		{"never refuses", hitsAt(100, 50, 6, 0, func(int, int) bool { return true }), reports.StatusFail},
		{"admits half", hitsAt(100, 50, 6, 0, func(sec, n int) bool { return n < 25 }), reports.StatusFail},
	}
	for _, c := range cases {
		res := judgeWindows(c.hits, p, 3, 100, 50*time.Millisecond, 0.2)
		if res.Status != c.want {
			t.Errorf("%s: %s (%s / %s %s); want %s", c.name, res.Status, res.Expected, res.Observed, res.Reason, c.want)
		}
	}
}

func TestTightestPolicy(t *testing.T) {
	t.Parallel()
	f := headers.RateLimitFields{Policies: []headers.Policy{
		{Name: "day", Quota: 1000, Window: 24 * time.Hour, Unit: headers.UnitRequests},
		{Name: "burst", Quota: 100, Window: time.Second, Unit: headers.UnitRequests},
		{Name: "bytes", Quota: 1, Window: time.Second, Unit: headers.UnitContentBytes},
		{Name: "nowin", Quota: 1, Unit: headers.UnitRequests},
	}}
	if p, ok := tightestPolicy(f); !ok || p.Name != "day" {
		t.Errorf("tightestPolicy = %+v, %v; want day", p, ok)
	}
}
