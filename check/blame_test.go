package check

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/faults"
)

// TestHarness_BlameFor: each rule names the tier its per-hop evidence
// points at, and says so when no rule's evidence is there.
func TestHarness_BlameFor(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	id := 0
	entry := func(side string, from, to int, status int, hd ...string) faults.Entry {
		id++
		e := faults.Entry{ID: side + "-" + string(rune('a'+id)), Side: side, Method: "POST", Received: ms(from), Finished: ms(to), Status: status,
			Headers: map[string]string{}, ResponseHeaders: map[string]string{}, UpstreamCalls: 1}
		for i := 0; i+1 < len(hd); i += 2 {
			if strings.HasPrefix(hd[i], "<") {
				e.ResponseHeaders[hd[i][1:]] = hd[i+1]
				continue
			}
			e.Headers[hd[i]] = hd[i+1]
		}
		return e
	}
	gone := func(e faults.Entry, n int) faults.Entry { e.ClientGone = ms(n); return e }
	dup := func(e faults.Entry) faults.Entry { e.UpstreamCalls = 2; return e }
	get := func(e faults.Entry) faults.Entry { e.Method = "GET"; return e }
	onCopy := func(e faults.Entry, prefix string) faults.Entry { e.ID = prefix + e.ID; return e }
	two := []Hop{{From: "gateway", To: "service"}}
	three := []Hop{{From: "edge", To: "gateway"}, {From: "gateway", To: "service"}}
	key := []string{"Idempotency-Key", "k1"}
	hs := HopSide
	cases := []struct {
		name    string
		hops    []Hop
		rules   []BlameRule
		entries []faults.Entry
		tier    string // "" = cannot tell
		why     string // a part of Why
	}{
		{"a tier re-sends", two, DefaultBlame, []faults.Entry{
			entry("front", 0, 90, 502, key...), entry(hs("service"), 1, 10, 0, key...), entry(hs("service"), 11, 20, 0, key...), entry(hs("service"), 21, 30, 0, key...)},
			"gateway", "carried 3 requests with the key k1 for the 1 gateway received"},
		{"a tier re-sends a request without a key", two, DefaultBlame, []faults.Entry{
			entry("front", 0, 90, 502), entry(hs("service"), 1, 10, 0), entry(hs("service"), 11, 20, 0)},
			"gateway", "carried 2 requests for the 1 gateway received"},
		{"concurrent copies of one key, each carried once", two, []BlameRule{BlameResends, BlameAnswer, BlameCalls}, []faults.Entry{
			entry("front", 0, 90, 201, key...), entry("front", 1, 90, 201, key...), entry("front", 2, 90, 409, key...),
			entry(hs("service"), 3, 80, 201, key...), entry(hs("service"), 4, 80, 201, key...), entry(hs("service"), 5, 80, 409, key...),
			entry("dependency", 10, 20, 201), entry("dependency", 11, 21, 201)},
			"service", "the dependency calls are service's"},
		{"the front duplicated a request: no tier re-sent it", two, []BlameRule{BlameResends, BlameAnswer}, []faults.Entry{
			dup(entry("front", 0, 50, 201, key...)), entry(hs("service"), 1, 40, 201, key...), entry(hs("service"), 2, 40, 201, key...)},
			"service", "the 201 came from service"},
		{"concurrent copies of one key, re-sent", two, []BlameRule{BlameResends, BlameAnswer}, []faults.Entry{
			entry("front", 0, 90, 502, key...), entry("front", 1, 90, 502, key...),
			entry(hs("service"), 3, 10, 0, key...), entry(hs("service"), 4, 10, 0, key...), entry(hs("service"), 11, 20, 0, key...)},
			"gateway", "carried 3 requests with the key k1 for the 2 gateway received"},
		{"the middle of three tiers re-sends", three, DefaultBlame, []faults.Entry{
			entry("front", 0, 90, 503, key...), entry(hs("gateway"), 1, 80, 503, key...), entry(hs("service"), 2, 10, 503, key...), entry(hs("service"), 11, 20, 503, key...)},
			"gateway", "the hop gateway → service carried 2 requests with the key k1 for the 1 gateway received"},
		{"a tier keeps its request open after the caller left", two, DefaultBlame, []faults.Entry{
			gone(entry("front", 0, 100, 0, key...), 100), entry(hs("service"), 1, 900, 201, key...)},
			"gateway", "did not pass the disconnect on"},
		{"the disconnect passed on: the budget rule decides", two, DefaultBlame, []faults.Entry{
			gone(entry("front", 0, 100, 0, "X-Request-Timeout-Ms", "500"), 100), gone(entry(hs("service"), 1, 101, 0), 101)},
			"gateway", "forwarded none to service"},
		{"a budget forwarded larger", two, DefaultBlame, []faults.Entry{
			entry("front", 0, 600, 504, "X-Request-Timeout-Ms", "500"), entry(hs("service"), 1, 600, 504, "Grpc-Timeout", "2S")},
			"gateway", "given a budget of 500 ms and forwarded 2000 ms"},
		{"a shrinking budget, then the dependency calls", two, []BlameRule{BlameBudget, BlameCalls}, []faults.Entry{
			entry("front", 0, 600, 504, "X-Request-Timeout-Ms", "500"), entry(hs("service"), 1, 600, 504, "X-Request-Timeout-Ms", "499"),
			entry("dependency", 2, 300, 503), entry("dependency", 350, 700, 503)},
			"service", "the dependency calls are service's"},
		{"a tier answers itself", two, DefaultBlame, []faults.Entry{entry("front", 0, 5, 201), entry(hs("service"), 1, 4, 201), entry("front", 10, 12, 429)},
			"gateway", "gateway answered 429 itself: service saw no request"},
		{"a health check on the hop is no re-send", two, DefaultBlame, []faults.Entry{
			entry("front", 0, 90, 503, key...), entry(hs("service"), 1, 80, 503, key...), get(entry(hs("service"), 20, 21, 200))},
			"service", "the 503 came from service"},
		{"an exchange with a key of its own belongs to no request", two, []BlameRule{BlameResends, BlameCalls}, []faults.Entry{
			entry("front", 0, 90, 503, key...), entry(hs("service"), 1, 80, 503, key...), entry(hs("service"), 20, 21, 200, "Idempotency-Key", "other"),
			entry("dependency", 2, 10, 503)},
			"service", "the dependency calls are service's"},
		{"keyless requests re-sent, not followed: the calls are not laid at the last tier", two, []BlameRule{BlameResends, BlameCalls}, []faults.Entry{
			entry("front", 0, 90, 502), entry("front", 1, 90, 502),
			entry(hs("service"), 2, 10, 0), entry(hs("service"), 3, 10, 0), entry(hs("service"), 11, 20, 0), entry(hs("service"), 12, 20, 0),
			entry("dependency", 4, 8, 503)},
			"", "2 of the 2 requests judged could not be followed hop by hop"},
		{"copies of the target are kept apart", two, []BlameRule{BlameResends}, []faults.Entry{
			onCopy(entry("front", 0, 90, 502), "c1-"), onCopy(entry("front", 1, 90, 502), "c2-"),
			onCopy(entry(hs("service"), 2, 10, 0), "c1-"), onCopy(entry(hs("service"), 3, 10, 0), "c2-"), onCopy(entry(hs("service"), 11, 20, 0), "c2-")},
			"gateway", "carried 2 requests for the 1 gateway received"},
		{"a rule of no kind is skipped", two, []BlameRule{{Name: "custom"}, BlameAnswer}, []faults.Entry{entry("front", 0, 50, 503, key...), entry(hs("service"), 1, 40, 503, key...)},
			"service", "the 503 came from service"},
		{"a tier replaces the answer", two, DefaultBlame, []faults.Entry{entry("front", 0, 50, 502, key...), entry(hs("service"), 1, 40, 500, key...)},
			"gateway", "gateway answered 502 where service had answered it 500"},
		{"an error page in place of the answer", two, DefaultBlame, []faults.Entry{
			entry("front", 0, 50, 400, "Idempotency-Key", "k1", "<Content-Type", "text/html; charset=iso-8859-1"),
			entry(hs("service"), 1, 40, 400, "Idempotency-Key", "k1", "<Content-Type", "application/problem+json")},
			"gateway", "gateway answered 400 (text/html) where service had answered it 400 (application/problem+json)"},
		{"an answer passed on with its parameters changed", two, DefaultBlame, []faults.Entry{
			entry("front", 0, 50, 201, "Idempotency-Key", "k1", "<Content-Type", "application/json; charset=utf-8"),
			entry(hs("service"), 1, 40, 201, "Idempotency-Key", "k1", "<Content-Type", "application/json")},
			"service", "the 201 came from service"},
		{"an answer passed on", two, DefaultBlame, []faults.Entry{entry("front", 0, 50, 503, key...), entry(hs("service"), 1, 40, 503, key...)},
			"service", "the 503 came from service"},
		{"a Retry-After dropped", two, []BlameRule{BlameAnswer}, []faults.Entry{
			entry("front", 0, 50, 503, key...), entry(hs("service"), 1, 40, 503, "Idempotency-Key", "k1", "<Retry-After", "1")},
			"gateway", "gateway passed the 503 on without it"},
		{"a Retry-After rewritten", two, []BlameRule{BlameAnswer}, []faults.Entry{
			entry("front", 0, 50, 503, "Idempotency-Key", "k1", "<Retry-After", "1.5s"), entry(hs("service"), 1, 40, 503, "Idempotency-Key", "k1", "<Retry-After", "1")},
			"gateway", "gateway passed it on as Retry-After: 1.5s"},
		{"a key sent again later: each hop exchange is the request's in flight", two, []BlameRule{BlameAnswer}, []faults.Entry{
			entry("front", 0, 50, 201, key...), entry(hs("service"), 1, 40, 201, key...), entry("front", 60, 90, 201, key...), entry(hs("service"), 61, 80, 201, key...)},
			"service", "the 201 came from service"},
		{"two in flight, told apart by their keys", two, []BlameRule{BlameResends}, []faults.Entry{
			entry("front", 0, 50, 503, key...), entry("front", 1, 50, 503, "Idempotency-Key", "k2"),
			entry(hs("service"), 2, 10, 503, key...), entry(hs("service"), 3, 10, 503, "Idempotency-Key", "k2"), entry(hs("service"), 11, 20, 503, "Idempotency-Key", "k2")},
			"gateway", "carried 2 requests with the key k2 for the 1 gateway received"},
		{"the limiter behind the gateway", two, []BlameRule{BlameLimiter, BlameAnswer}, []faults.Entry{
			entry("front", 0, 5, 201), entry(hs("service"), 1, 4, 201), entry("front", 10, 15, 429), entry(hs("service"), 11, 14, 429)},
			"service", "service answered the case's 429s"},
		{"the limiter in the gateway", two, []BlameRule{BlameLimiter, BlameAnswer}, []faults.Entry{
			entry("front", 0, 5, 201), entry(hs("service"), 1, 4, 201), entry("front", 10, 15, 429)},
			"gateway", "gateway answered the case's 429s"},
		{"no evidence for the rules", two, []BlameRule{BlameCalls}, []faults.Entry{entry("front", 0, 50, 503), entry(hs("service"), 1, 40, 503)},
			"", "every hop carried one request per request"},
		{"two requests in flight, no keys: hop exchanges are not guessed", two, []BlameRule{BlameResends}, []faults.Entry{
			entry("front", 0, 50, 503), entry("front", 1, 50, 503), entry(hs("service"), 2, 10, 503), entry(hs("service"), 11, 20, 503)},
			"", "2 of the 2 requests judged could not be followed hop by hop: they were in flight together with no key to tell them apart"},
		{"one tier", nil, DefaultBlame, []faults.Entry{entry("front", 0, 50, 503)}, "", "declares one tier"},
		{"no request", two, DefaultBlame, []faults.Entry{entry(hs("service"), 1, 40, 503)}, "", "no request of the case reached the first tier"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := &Harness{Hops: c.hops, Journal: faults.NewJournal()}
			for _, e := range c.entries {
				h.Journal.Record(e)
			}
			b := h.BlameFor(c.rules, c.entries, nil)
			if b.Tier != c.tier || !strings.Contains(b.Why, c.why) {
				t.Errorf("BlameFor = %+v; want tier %q with %q", b, c.tier, c.why)
			}
			if s := b.String(); c.tier == "" && !strings.HasPrefix(s, "tier: cannot tell (") || c.tier != "" && !strings.HasPrefix(s, "tier: "+c.tier+" (") {
				t.Errorf("String() = %q", s)
			}
		})
	}
}

// TestHarness_BlameFor_focus: the requests traced are the front exchanges
// the failure gives as evidence, not every request of the case.
func TestHarness_BlameFor_focus(t *testing.T) {
	t.Parallel()
	t0 := time.Now()
	h := &Harness{Hops: []Hop{{From: "gateway", To: "service"}}}
	good := faults.Entry{ID: "front-1", Side: "front", Received: t0, Finished: t0.Add(time.Millisecond), Status: 201, Headers: map[string]string{"Idempotency-Key": "a"}}
	bad := faults.Entry{ID: "front-2", Side: "front", Received: t0.Add(2 * time.Millisecond), Finished: t0.Add(3 * time.Millisecond), Status: 429, Headers: map[string]string{"Idempotency-Key": "b"}}
	hop := faults.Entry{ID: "hop-1", Side: HopSide("service"), Received: t0, Finished: t0.Add(time.Millisecond), Status: 201, Headers: map[string]string{"Idempotency-Key": "a"}}
	entries := []faults.Entry{good, hop, bad}
	if b := h.BlameFor([]BlameRule{BlameAnswer}, entries, []faults.Entry{good}); b.Tier != "service" {
		t.Errorf("focus on the 201: %+v; want service", b)
	}
	if b := h.BlameFor([]BlameRule{BlameAnswer}, entries, []faults.Entry{bad}); b.Tier != "gateway" {
		t.Errorf("focus on the 429: %+v; want gateway", b)
	}
}

// TestHarness_blameEntries: a run-wide failure's evidence from before the
// case brings the hop exchanges of its requests along, so its tier is
// judged by what the hops carried, not by their absence from the case.
func TestHarness_blameEntries(t *testing.T) {
	t.Parallel()
	j := faults.NewJournal()
	t0 := time.Now()
	rec := func(id, side string, from, to int, status int, ra string) faults.Entry {
		e := faults.Entry{ID: id, Side: side, Method: "POST", Received: t0.Add(time.Duration(from) * time.Millisecond),
			Finished: t0.Add(time.Duration(to) * time.Millisecond), Status: status, UpstreamCalls: 1, ResponseHeaders: map[string]string{}}
		if ra != "" {
			e.ResponseHeaders["Retry-After"] = ra
		}
		return j.Record(e)
	}
	early := rec("front-1", "front", 0, 50, 503, "")
	rec("hop-1", HopSide("service"), 1, 40, 503, "1")
	rec("hop-2", HopSide("service"), 200, 210, 201, "") // after the early request: not its
	window := []faults.Entry{rec("front-9", "front", 1000, 1010, 201, "")}
	h := &Harness{Journal: j, Hops: []Hop{{From: "gateway", To: "service"}}}
	entries := h.blameEntries(window, []faults.Entry{early})
	var ids []string
	for _, e := range entries {
		ids = append(ids, e.ID)
	}
	if want := []string{"front-9", "front-1", "hop-1"}; !slices.Equal(ids, want) {
		t.Errorf("entries %q; want %q", ids, want)
	}
	if b := h.BlameFor([]BlameRule{BlameAnswer}, entries, []faults.Entry{early}); b.Tier != "gateway" || !strings.Contains(b.Why, "passed the 503 on without it") {
		t.Errorf("BlameFor = %+v; want gateway, which dropped the Retry-After", b)
	}
}

// TestHarness_blameEntries_concurrent: the fronts in flight beside an
// earlier evidence request come along, so the hop exchange of another
// request is not taken for its.
func TestHarness_blameEntries_concurrent(t *testing.T) {
	t.Parallel()
	j := faults.NewJournal()
	t0 := time.Now()
	rec := func(id, side string, from, to, status int, key string) faults.Entry {
		return j.Record(faults.Entry{ID: id, Side: side, Method: "POST", Received: t0.Add(time.Duration(from) * time.Millisecond),
			Finished: t0.Add(time.Duration(to) * time.Millisecond), Status: status, UpstreamCalls: 1, Headers: map[string]string{"Idempotency-Key": key}})
	}
	bad := rec("front-1", "front", 0, 50, 429, "a")
	rec("front-2", "front", 1, 60, 201, "b")
	rec("hop:service-1", HopSide("service"), 2, 40, 429, "a")
	rec("hop:service-2", HopSide("service"), 3, 55, 201, "b")
	window := []faults.Entry{rec("front-9", "front", 1000, 1010, 201, "z")}
	h := &Harness{Journal: j, Hops: []Hop{{From: "gateway", To: "service"}}}
	b := h.BlameFor([]BlameRule{BlameLimiter}, h.blameEntries(window, []faults.Entry{bad}), []faults.Entry{bad})
	if b.Tier != "service" {
		t.Errorf("BlameFor = %+v; want service, whose 429 the gateway passed on", b)
	}
}

// TestHarness_BlameFor_answeredItself: requests a tier answered itself in
// a case (a limiter's, a health route's) are laid at it when its hop has
// carried requests earlier in the run.
func TestHarness_BlameFor_answeredItself(t *testing.T) {
	t.Parallel()
	t0 := time.Now()
	j := faults.NewJournal()
	j.Record(faults.Entry{ID: "hop:service-1", Side: HopSide("service"), Method: "POST", Received: t0, Finished: t0.Add(time.Millisecond), Status: 201})
	h := &Harness{Journal: j, Hops: []Hop{{From: "gateway", To: "service"}}}
	front := faults.Entry{ID: "front-9", Side: "front", Method: "GET", Received: t0.Add(time.Second), Finished: t0.Add(time.Second + time.Millisecond), Status: 200}
	if b := h.BlameFor([]BlameRule{BlameAnswer}, []faults.Entry{front}, nil); b.Tier != "gateway" || !strings.Contains(b.Why, "gateway answered 200 itself") {
		t.Errorf("BlameFor = %+v; want gateway, which answered itself", b)
	}
}
