package faults

import (
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

const ms = time.Millisecond

var (
	latencyBimodal = Latency{Fast: 20 * ms, Slow: 500 * ms, SlowShare: 0.05}
	latencyShape   = Latency{P50: 20 * ms, P90: 50 * ms, P99: 400 * ms, Max: time.Second}
)

func TestLatency_Validate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		f    Latency
		want string // substring of the error; "" means valid
	}{
		{"bimodal", latencyBimodal, ""},
		{"bimodal with jitter", Latency{Fast: 20 * ms, Slow: 500 * ms, SlowShare: 0.05, Jitter: 5 * ms, Phase: "response"}, ""},
		{"bimodal instant fast", Latency{Slow: time.Second, SlowShare: 0.1}, ""},
		{"bimodal never slow", Latency{Fast: ms, Slow: time.Second}, ""},
		{"bimodal always slow", Latency{Fast: ms, Slow: time.Second, SlowShare: 1}, ""},
		{"shape", latencyShape, ""},
		{"shape max only", Latency{Max: time.Second}, ""},
		{"shape without p90", Latency{P50: 20 * ms, P99: 400 * ms, Max: time.Second}, ""},
		{"neither", Latency{}, "give fast, slow and slow_share, or p50"},
		{"jitter alone", Latency{Jitter: ms}, "give fast, slow and slow_share, or p50"},
		{"both", Latency{Fast: ms, Slow: time.Second, SlowShare: 0.1, Max: time.Second}, "not both"},
		{"negative fast", Latency{Fast: -ms, Slow: time.Second, SlowShare: 0.1}, "must not be negative"},
		{"negative jitter", Latency{Fast: ms, Slow: time.Second, Jitter: -ms}, "must not be negative"},
		{"negative p50", Latency{P50: -ms, Max: time.Second}, "must not be negative"},
		{"share above 1", Latency{Fast: ms, Slow: time.Second, SlowShare: 1.5}, "slow_share 1.5 not in [0, 1]"},
		{"share below 0", Latency{Fast: ms, Slow: time.Second, SlowShare: -0.1}, "slow_share -0.1 not in [0, 1]"},
		{"share NaN", Latency{Fast: ms, Slow: time.Second, SlowShare: math.NaN()}, "not in [0, 1]"},
		{"no slow", Latency{Fast: ms, SlowShare: 0.1}, "slow must be a positive"},
		{"slow below fast", Latency{Fast: time.Second, Slow: ms, SlowShare: 0.1}, "slow 1ms is below fast 1s"},
		{"shape without max", Latency{P50: 20 * ms, P90: 50 * ms}, "needs max"},
		{"shape with jitter", Latency{P50: 20 * ms, Max: time.Second, Jitter: ms}, "jitter applies to fast and slow only"},
		{"p90 below p50", Latency{P50: 50 * ms, P90: 20 * ms, Max: time.Second}, "p90 20ms is not above p50 50ms"},
		{"p99 equal to max", Latency{P50: 20 * ms, P99: time.Second, Max: time.Second}, "max 1s is not above p99 1s"},
		{"max below p50", Latency{P50: 2 * time.Second, Max: time.Second}, "max 1s is not above p50 2s"},
		{"bad phase", Latency{Max: time.Second, Phase: "later"}, `phase "later"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.f.Validate()
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("Validate(%+v) = %v; want %q", tt.f, err, tt.want)
			}
		})
	}
}

func TestLatency_Quantile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		f    Latency
		u    float64
		want time.Duration
	}{
		{latencyShape, 0, 0},
		{latencyShape, 0.25, 10 * ms},
		{latencyShape, 0.5, 20 * ms},
		{latencyShape, 0.7, 35 * ms},
		{latencyShape, 0.9, 50 * ms},
		{latencyShape, 0.99, 400 * ms},
		{latencyShape, 0.995, 700 * ms},
		{latencyShape, 1, time.Second},
		{Latency{Max: time.Second}, 0.3, 300 * ms},
		{Latency{P50: 20 * ms, P99: 400 * ms, Max: time.Second}, 0.745, 210 * ms}, // p90 left out: p50–p99 is one segment
	}
	for _, tt := range tests {
		if got := tt.f.quantile(tt.u); (got - tt.want).Abs() > time.Microsecond {
			t.Errorf("%+v at %v = %v; want %v", tt.f, tt.u, got, tt.want)
		}
	}
}

// latencyExchange is the n-th exchange of a rule named name under seed, as
// the proxy would build it, for drawing waits without serving requests.
func latencyExchange(seed uint64, name string, f Latency, n uint64) *Exchange {
	return &Exchange{p: &Proxy{seed: seed}, rule: newRules(seed).newState(Rule{Name: name, Fault: f}), n: n}
}

func drawLatencies(f Latency, seed uint64, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = f.Wait(latencyExchange(seed, "lat", f, uint64(i+1)))
	}
	return out
}

func TestLatency_Wait(t *testing.T) {
	t.Parallel()
	for _, f := range []Latency{latencyBimodal, latencyShape, {Fast: 20 * ms, Slow: 500 * ms, SlowShare: 0.5, Jitter: 5 * ms}} {
		a, b := drawLatencies(f, 42, 200), drawLatencies(f, 42, 200)
		if !slices.Equal(a, b) {
			t.Fatalf("%+v: same seed drew %v then %v", f, a[:10], b[:10])
		}
		if c := drawLatencies(f, 43, 200); slices.Equal(a, c) {
			t.Fatalf("%+v: seeds 42 and 43 drew the same waits", f)
		}
	}
}

// Tolerances are 4 binomial standard deviations of the share at each point
// over n draws, sqrt(q(1-q)/n), so a correct draw fails for no seed in
// practice. The shape is checked by the share at or below each declared
// point rather than by empirical durations: just above a point the inverse
// CDF is steep (p90 to p99 spans 350 ms over 9 %), so a duration tolerance
// of a few percent would measure noise.
func TestLatency_Distribution(t *testing.T) {
	t.Parallel()
	const n = 10_000
	tol := func(q float64) float64 { return 4 * math.Sqrt(q*(1-q)/n) }
	shareAtMost := func(ds []time.Duration, limit time.Duration) float64 {
		k := 0
		for _, d := range ds {
			if d <= limit {
				k++
			}
		}
		return float64(k) / float64(len(ds))
	}

	t.Run("bimodal", func(t *testing.T) {
		f := Latency{Fast: 20 * ms, Slow: 500 * ms, SlowShare: 0.05, Jitter: 5 * ms}
		slow := 0
		for _, d := range drawLatencies(f, 42, n) {
			switch {
			case d >= 495*ms && d <= 505*ms:
				slow++
			case d < 15*ms || d > 25*ms:
				t.Fatalf("wait %v is in neither mode ±jitter", d)
			}
		}
		if got := float64(slow) / n; math.Abs(got-0.05) > 0.01 {
			t.Fatalf("slow share %.4f; want 0.05 ± 0.01", got)
		}
	})

	t.Run("shape", func(t *testing.T) {
		ds := drawLatencies(latencyShape, 42, n)
		for _, p := range latencyShape.points()[1:] {
			if got := shareAtMost(ds, p.d); math.Abs(got-p.q) > tol(p.q) {
				t.Errorf("share at or below %s (%v) = %.4f; want %.2f ± %.4f", p.name, p.d, got, p.q, tol(p.q))
			}
		}
		if top := slices.Max(ds); top > latencyShape.Max {
			t.Errorf("drew %v above max %v", top, latencyShape.Max)
		}
		// Within a segment the draw is uniform: a quarter of the p50–p90
		// share lies below its first quarter.
		if got := shareAtMost(ds, 27500*time.Microsecond) - shareAtMost(ds, 20*ms); math.Abs(got-0.1) > tol(0.1) {
			t.Errorf("share in (20ms, 27.5ms] = %.4f; want 0.10 ± %.4f", got, tol(0.1))
		}
	})
}

// TestLatency_Inject serves requests through a stand-in proxy and finds in
// the journal the wait the n-th exchange of each rule drew, in its phase.
func TestLatency_Inject(t *testing.T) {
	t.Parallel()
	resp := Latency{P50: 20 * ms, P90: 50 * ms, P99: 400 * ms, Max: time.Second, Phase: "response"}
	rules := []Rule{
		{Name: "bi", Match: Match{Path: "/bi"}, Fault: latencyBimodal},
		{Name: "shape", Match: Match{Path: "/shape"}, Fault: resp},
	}
	run := func() (bi, shape []time.Duration) {
		withStandIn(t, rules, func(t *testing.T, p *Proxy, c *http.Client) {
			for range 40 {
				if r, body, err := get(t, c, "/bi"); err != nil || r.StatusCode != 200 || body != "{}" {
					t.Fatal(r, body, err)
				}
				e := last(t, p)
				if e.Fault != "latency" || e.Outcome != OutcomeFaulted {
					t.Fatalf("journal %+v", e)
				}
				bi = append(bi, e.Forwarded.Sub(e.Received))
				get(t, c, "/shape")
				e = last(t, p)
				if e.Answered.Sub(e.Forwarded) != 0 {
					t.Fatalf("response phase waited before forwarding: %+v", e)
				}
				shape = append(shape, e.Finished.Sub(e.Answered))
			}
		})
		return bi, shape
	}
	bi, shape := run()
	for i := range bi {
		n := uint64(i + 1)
		if want := latencyBimodal.Wait(latencyExchange(7, "bi", latencyBimodal, n)); bi[i] != want {
			t.Fatalf("/bi #%d waited %v; the seed draws %v", n, bi[i], want)
		}
		if want := resp.Wait(latencyExchange(7, "shape", resp, n)); shape[i] != want {
			t.Fatalf("/shape #%d waited %v; the seed draws %v", n, shape[i], want)
		}
	}
	if !slices.Contains(bi, 500*ms) || !slices.Contains(bi, 20*ms) {
		t.Fatalf("40 bimodal waits never took both modes: %v", bi)
	}
	if bi2, shape2 := run(); !slices.Equal(bi, bi2) || !slices.Equal(shape, shape2) {
		t.Fatalf("a second run did not replay:\n%v\n%v", bi, bi2)
	}
}

func TestLatency_RulesFile(t *testing.T) {
	t.Parallel()
	src := `rules:
  - name: tail
    match: {path: /charges}
    fault: {type: latency, fast: 20ms, slow: 500ms, slow_share: 0.05, jitter: 2ms}
  - name: shape
    fault:
      type: latency
      p50: 20ms
      p90: 50
      p99: 400ms
      max: 1s
      phase: response
`
	want := []Rule{
		{Name: "tail", Match: Match{Path: "/charges"}, Fault: &Latency{Fast: 20 * ms, Slow: 500 * ms, SlowShare: 0.05, Jitter: 2 * ms}},
		{Name: "shape", Fault: &Latency{P50: 20 * ms, P90: 50 * ms, P99: 400 * ms, Max: time.Second, Phase: "response"}},
	}
	rf, err := ParseRules("r.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rf.Rules, want) {
		t.Fatalf("parsed %#v", rf.Rules)
	}
	// Written back as YAML from the rules' own encoding, they parse the same.
	var list []any
	for _, r := range want {
		b, _ := json.Marshal(r)
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		list = append(list, m)
	}
	out, err := yaml.Marshal(map[string]any{"rules": list})
	if err != nil {
		t.Fatal(err)
	}
	again, err := ParseRules("out.yaml", out)
	if err != nil || !reflect.DeepEqual(again.Rules, want) {
		t.Fatalf("re-parsed %s: %#v, %v", out, again, err)
	}

	bad := "rules:\n  - name: x\n    fault:\n      type: latency\n      fast: 20ms\n      max: 1s\n"
	var fe *RulesFileError
	if _, err := ParseRules("r.yaml", []byte(bad)); err == nil || !strings.Contains(err.Error(), "not both") || !errors.As(err, &fe) {
		t.Fatalf("both shapes: %v", err)
	}
}

func TestLatency_Admin(t *testing.T) {
	t.Parallel()
	p := startProxy(t)
	srv := httptest.NewServer(NewAdmin(p))
	defer srv.Close()
	rule := `{"name":"tail","fault":{"type":"latency","p50":"20ms","p90":"50ms","p99":"400ms","max":"1s"}}`
	if code, body := adminDo(t, srv, "POST", "/rules", rule); code != 201 {
		t.Fatalf("POST /rules = %d %s", code, body)
	}
	code, body := adminDo(t, srv, "GET", "/rules", "")
	var got []Rule
	if err := json.Unmarshal([]byte(body), &got); code != 200 || err != nil {
		t.Fatalf("GET /rules = %d %s (%v)", code, body, err)
	}
	want := []Rule{{Name: "tail", Fault: &Latency{P50: 20 * ms, P90: 50 * ms, P99: 400 * ms, Max: time.Second}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("GET /rules gave %#v", got)
	}
	bad := `{"name":"x","fault":{"type":"latency","fast":"1s","slow":"10ms","slow_share":0.1}}`
	if code, body := adminDo(t, srv, "POST", "/rules", bad); code != 400 || !strings.Contains(body, "below fast") {
		t.Fatalf("POST bad rule = %d %s", code, body)
	}
}
