package headers

import (
	"errors"
	"net/http"
	"reflect"
	"slices"
	"testing"
	"time"
)

// rules lists the rule of each violation in err.
func rules(err error) []string {
	var out []string
	for _, v := range Violations(err) {
		out = append(out, v.Rule)
	}
	return out
}

func TestParseRateLimitPolicy(t *testing.T) {
	t.Parallel()
	ok := []struct {
		in   string
		want []Policy
	}{
		{`"burst";q=100;w=60,"daily";q=1000;w=86400`, []Policy{
			{Form: FormDraft10, Name: "burst", Quota: 100, Unit: UnitRequests, Window: time.Minute},
			{Form: FormDraft10, Name: "daily", Quota: 1000, Unit: UnitRequests, Window: 24 * time.Hour}}},
		{`"peruser";q=65535;qu="content-bytes";w=10;pk=:sdfjLJUOUH==:`, []Policy{
			{Form: FormDraft10, Name: "peruser", Quota: 65535, Unit: UnitContentBytes, Window: 10 * time.Second,
				PartitionKey: []byte{0xb1, 0xd7, 0xe3, 0x2c, 0x95, 0x0e, 0x50}}}},
		{`"x";q=0`, []Policy{{Form: FormDraft10, Name: "x", Quota: 0, Unit: UnitRequests}}},
		{`"x";q=5;acme-burst=9`, []Policy{{Form: FormDraft10, Name: "x", Quota: 5, Unit: UnitRequests}}},
		{`10;w=1, 50;w=60`, []Policy{
			{Form: FormIntegerPolicy, Quota: 10, Unit: UnitRequests, Window: time.Second},
			{Form: FormIntegerPolicy, Quota: 50, Unit: UnitRequests, Window: time.Minute}}},
		{FormatRateLimitPolicy("tenant", 50, time.Second), []Policy{{Form: FormDraft10, Name: "tenant", Quota: 50, Unit: UnitRequests, Window: time.Second}}},
	}
	for _, c := range ok {
		got, err := ParseRateLimitPolicy(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseRateLimitPolicy(%q) = %#v, %v; want %#v", c.in, got, err, c.want)
		}
	}
	bad := []struct {
		in    string
		rules []string
	}{
		{`quota;q=10`, []string{"RL-01"}},
		{`"x"`, []string{"RL-01"}},
		{`"x";q=-1`, []string{"RL-01"}},
		{`"x";q=1.5`, []string{"RL-01"}},
		{`"x";q="1"`, []string{"RL-01"}},
		{``, []string{"RL-01"}},
		{`"x";q=1,`, []string{"RL-01"}},
		{`("x");q=1`, []string{"RL-01"}},
		{`"x";q=1;w=0`, []string{"RL-02"}},
		{`"x";q=1;w=1.5`, []string{"RL-02"}},
		{`"x";q=1;w=-1`, []string{"RL-02"}},
		{`"x";q=1;qu="bytes"`, []string{"RL-03"}},
		{`"x";q=1;qu=requests`, []string{"RL-03"}},
		{`"x";q=1;pk="abc"`, []string{"RL-04"}},
		{`"x";q=1;pk=abc`, []string{"RL-04"}},
		{`"x";q=-1;w=0;qu="y";pk=1`, []string{"RL-01", "RL-02", "RL-03", "RL-04"}},
		{`10`, []string{"RL-02"}},
		{`10;w=0`, []string{"RL-02"}},
	}
	for _, c := range bad {
		got, err := ParseRateLimitPolicy(c.in)
		if !errors.Is(err, ErrSyntax) || got != nil || !slices.Equal(rules(err), c.rules) {
			t.Errorf("ParseRateLimitPolicy(%q) = %#v, %v (rules %v); want rules %v", c.in, got, err, rules(err), c.rules)
		}
	}
	p, err := ParseRateLimitPolicy(`"x";q=1;qu="request";extra=1`)
	if err != nil || len(p) != 1 || len(p[0].Warnings) != 2 {
		t.Errorf("warnings: %#v, %v; want two (singular unit, unprefixed parameter)", p, err)
	}
}

func TestParseRateLimit(t *testing.T) {
	t.Parallel()
	ok := []struct {
		in   string
		want []Limit
	}{
		{`"default";r=50;t=30`, []Limit{{Form: FormDraft10, Name: "default", Remaining: 50, Reset: 30 * time.Second, HasReset: true}}},
		{`"a";r=0, "b";r=7;t=0;pk=:AQ==:`, []Limit{
			{Form: FormDraft10, Name: "a"},
			{Form: FormDraft10, Name: "b", Remaining: 7, HasReset: true, PartitionKey: []byte{1}}}},
		{`"x";r=1;t=1000000000`, []Limit{{Form: FormDraft10, Name: "x", Remaining: 1, Reset: 1e9 * time.Second, HasReset: true}}},
		{`limit=100, remaining=50, reset=5`, []Limit{{Form: FormDraft07, Quota: 100, Remaining: 50, Reset: 5 * time.Second, HasReset: true}}},
		{FormatRateLimit("tenant", 7, 1200*time.Millisecond), []Limit{{Form: FormDraft10, Name: "tenant", Remaining: 7, Reset: 2 * time.Second, HasReset: true}}},
	}
	for _, c := range ok {
		got, err := ParseRateLimit(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseRateLimit(%q) = %#v, %v; want %#v", c.in, got, err, c.want)
		}
	}
	bad := []struct {
		in    string
		rules []string
	}{
		{`quota;t=1`, []string{"RL-07"}}, // draft -10 appendix B.3.1: an erratum, strict fails it
		{`"x";t=1`, []string{"RL-07"}},
		{`"x";r=-1`, []string{"RL-07"}},
		{`"x";r=1.0`, []string{"RL-07"}},
		{`"x";r=1;t=-1`, []string{"RL-07"}},
		{`"x";r=1;t=1.5`, []string{"RL-07"}},
		{`"x";r=1;t=1700000000`, []string{"RL-07"}},
		{`"x";r=1;pk="k"`, []string{"RL-04"}},
		{`r=abc`, []string{"RL-07"}},
		{`"x";r=1, "x";r=`, []string{"RL-07"}},
		{`limit=100, remaining=-1, reset=5`, []string{"RL-07"}},
		{`limit=100, remaining=1`, []string{"RL-07"}},
		{`limit=100, remaining=1, reset=1700000000`, []string{"RL-07"}},
		{``, []string{"RL-07"}},
	}
	for _, c := range bad {
		got, err := ParseRateLimit(c.in)
		if !errors.Is(err, ErrSyntax) || got != nil || !slices.Equal(rules(err), c.rules) {
			t.Errorf("ParseRateLimit(%q) = %#v, %v (rules %v); want rules %v", c.in, got, err, rules(err), c.rules)
		}
	}
}

func TestParseRateLimitFields(t *testing.T) {
	t.Parallel()
	h := func(kv ...string) http.Header {
		out := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			out.Add(kv[i], kv[i+1])
		}
		return out
	}
	cases := []struct {
		name  string
		h     http.Header
		form  Form
		limit Limit
		err   bool
	}{
		{"draft-10", h(RateLimitPolicy, `"t";q=50;w=1`, RateLimit, `"t";r=3;t=1`), FormDraft10,
			Limit{Form: FormDraft10, Name: "t", Remaining: 3, Reset: time.Second, HasReset: true}, false},
		{"draft-10 split over lines", h(RateLimit, `"a";r=3`, RateLimit, `"b";r=4`), FormDraft10,
			Limit{Form: FormDraft10, Name: "a", Remaining: 3}, false},
		{"draft-07", h(RateLimitPolicy, `100;w=10`, RateLimit, `limit=100, remaining=50, reset=5`), FormDraft07,
			Limit{Form: FormDraft07, Quota: 100, Remaining: 50, Reset: 5 * time.Second, HasReset: true}, false},
		{"draft-06", h(RateLimitPolicy, `10;w=1`, RateLimitLimit, "10", RateLimitRemaining, "1", RateLimitReset, "7"), FormDraft06,
			Limit{Form: FormDraft06, Quota: 10, Remaining: 1, Reset: 7 * time.Second, HasReset: true}, false},
		{"draft-03 limit with policies", h(RateLimitLimit, "10, 10;w=1", RateLimitRemaining, "0"), FormDraft06,
			Limit{Form: FormDraft06, Quota: 10}, false},
		{"draft-06 negative", h(RateLimitLimit, "10", RateLimitRemaining, "-1"), FormDraft06, Limit{}, true},
		{"draft-06 epoch reset", h(RateLimitReset, "1700000000"), FormDraft06, Limit{}, true},
	}
	for _, c := range cases {
		f, err := ParseRateLimitFields(c.h)
		if (err != nil) != c.err || f.Form != c.form {
			t.Errorf("%s: form %q, err %v; want form %q, error %v", c.name, f.Form, err, c.form, c.err)
			continue
		}
		if !c.err && (len(f.Limits) == 0 || !reflect.DeepEqual(f.Limits[0], c.limit)) {
			t.Errorf("%s: limits %#v; want first %#v", c.name, f.Limits, c.limit)
		}
	}
	if f, err := ParseRateLimitFields(http.Header{}); err != nil || f.Present() {
		t.Errorf("no fields: %#v, %v; want absent, nil", f, err)
	}
}

func TestParseXRateLimit(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 250e6, time.UTC)
	cases := []struct {
		name        string
		h           http.Header
		kind        ResetKind
		in          time.Duration
		prefix, win string
	}{
		{"github epoch seconds", http.Header{"X-Ratelimit-Limit": {"60"}, "X-Ratelimit-Remaining": {"59"}, "X-Ratelimit-Reset": {"1772366410"}},
			ResetEpochSeconds, 9750 * time.Millisecond, "X-RateLimit-", ""},
		{"epoch milliseconds", http.Header{"X-Ratelimit-Reset": {"1772366400750"}}, ResetEpochMillis, 500 * time.Millisecond, "X-RateLimit-", ""},
		{"delta seconds", http.Header{"X-Ratelimit-Reset": {"30"}}, ResetDeltaSeconds, 30 * time.Second, "X-RateLimit-", ""},
		{"http-date", http.Header{"X-Rate-Limit-Reset": {"Sun, 01 Mar 2026 12:00:05 GMT"}}, ResetHTTPDate, 4750 * time.Millisecond, "X-Rate-Limit-", ""},
		{"asctime", http.Header{"X-Ratelimit-Reset": {"Sun Mar  1 12:00:05 2026"}}, ResetHTTPDate, 4750 * time.Millisecond, "X-RateLimit-", ""},
		{"rfc3339", http.Header{"X-Ratelimit-Reset": {"2026-03-01T12:00:02Z"}}, ResetRFC3339, 1750 * time.Millisecond, "X-RateLimit-", ""},
		{"window suffix", http.Header{"X-Ratelimit-Limit-Minute": {"100"}, "X-Ratelimit-Remaining-Minute": {"1"}}, "", 0, "X-RateLimit-", "-Minute"},
	}
	for _, c := range cases {
		x, err := ParseXRateLimit(c.h, now)
		if err != nil || x.ResetKind != c.kind || x.ResetIn != c.in || x.Prefix != c.prefix || x.Window != c.win {
			t.Errorf("%s: %+v, %v; want kind %q in %s prefix %q window %q", c.name, x, err, c.kind, c.in, c.prefix, c.win)
		}
	}
	x, _ := ParseXRateLimit(cases[0].h, now)
	if !x.HasLimit || x.Limit != 60 || !x.HasRemaining || x.Remaining != 59 || x.HasUsed {
		t.Errorf("github counts: %+v", x)
	}
	for _, h := range []http.Header{
		{"X-Ratelimit-Remaining": {"-1"}}, {"X-Ratelimit-Limit": {"1.5"}}, {"X-Ratelimit-Limit": {"10", "20"}},
		{"X-Ratelimit-Reset": {"soon"}}, {"X-Ratelimit-Reset": {"1.5"}}, {"X-Ratelimit-Remaining": {"5 "}},
	} {
		if _, err := ParseXRateLimit(h, now); !errors.Is(err, ErrSyntax) || !slices.Equal(rules(err), []string{"RL-22"}) {
			t.Errorf("ParseXRateLimit(%v) = %v; want an RL-22 violation", h, err)
		}
	}
	if x, err := ParseXRateLimit(http.Header{}, now); err != nil || x.Present() {
		t.Errorf("no fields: %+v, %v", x, err)
	}
}
