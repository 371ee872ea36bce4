package load

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

func TestParseThreshold(t *testing.T) {
	t.Parallel()
	cases := []struct {
		expr, metric, op string
		value            float64
		err              string
	}{
		{expr: "success>=0.99", metric: "success", op: ">=", value: 0.99},
		{expr: "success >= 99.5%", metric: "success", op: ">=", value: 0.995},
		{expr: "p99<500ms", metric: "p99", op: "<", value: 0.5},
		{expr: "p99.9<=1.5s", metric: "p99.9", op: "<=", value: 1.5},
		{expr: "mean<200ms", metric: "mean", op: "<", value: 0.2},
		{expr: "MAX>1ms", metric: "max", op: ">", value: 0.001},
		{expr: "success=0.99", err: "want METRIC OP VALUE"},
		{expr: "success>=1.5", err: "ratio in [0, 1]"},
		{expr: "success>=NaN", err: "ratio in [0, 1]"},
		{expr: "success>=nan%", err: "ratio in [0, 1]"},
		{expr: "p99<fast", err: "want a duration"},
		{expr: "p100<1s", err: "unknown metric"},
		{expr: "rps>10", err: "unknown metric"},
		{expr: "p99<<1s", err: "want METRIC OP VALUE"},
	}
	for _, c := range cases {
		got, err := ParseThreshold(c.expr)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) || !errors.Is(err, ErrSpec) {
				t.Errorf("ParseThreshold(%q) = %+v, %v; want an ErrSpec containing %q", c.expr, got, err, c.err)
			}
		case err != nil || got.Metric != c.metric || got.Op != c.op || got.Value < c.value-1e-9 || got.Value > c.value+1e-9:
			t.Errorf("ParseThreshold(%q) = %+v, %v; want %s %s %v", c.expr, got, err, c.metric, c.op, c.value)
		}
	}
}

func TestParseThresholds_defaultSuccess(t *testing.T) {
	t.Parallel()
	cases := []struct {
		exprs []string
		want  []string
	}{
		{nil, []string{DefaultThreshold}},
		{[]string{"p99<1s"}, []string{DefaultThreshold, "p99<1s"}},
		{[]string{"success>=0"}, []string{"success>=0"}},
	}
	for _, c := range cases {
		ts, err := ParseThresholds(c.exprs)
		var got []string
		for _, t := range ts {
			got = append(got, t.Expr)
		}
		if err != nil || strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("ParseThresholds(%q) = %q, %v; want %q", c.exprs, got, err, c.want)
		}
	}
}

func TestJudge(t *testing.T) {
	t.Parallel()
	var m vegeta.Metrics
	for i := range 100 {
		code := uint16(200)
		if i < 3 {
			code = 503
		}
		m.Add(&vegeta.Result{Code: code, Latency: time.Duration(i+1) * time.Millisecond, Timestamp: time.Unix(0, 0).Add(time.Duration(i) * time.Millisecond)})
	}
	m.Close()
	cases := []struct {
		expr   string
		passed bool
	}{
		{"success>=0.97", true},
		{"success>=0.99", false},
		{"p50<100ms", true},
		{"p99<50ms", false},
		{"max<=100ms", true},
		{"min>2ms", false},
		{"mean<60ms", true},
	}
	for _, c := range cases {
		th, err := ParseThreshold(c.expr)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Judge(&m, []Threshold{th})
		var te *ThresholdError
		if out[0].Passed != c.passed || (err == nil) != c.passed || (!c.passed && !errors.As(err, &te)) {
			t.Errorf("Judge(%s) observed %s: passed %v, err %v; want passed %v", c.expr, th.Format(out[0].Observed), out[0].Passed, err, c.passed)
		}
	}
	// No results: nothing shows any threshold held.
	th, _ := ParseThreshold("success>=0")
	if _, err := Judge(&vegeta.Metrics{}, []Threshold{th}); err == nil {
		t.Error("Judge of an empty run passed success>=0; want missed")
	}
}

// TestRun_thresholdsAndBytesIn: a target that fails every request misses the
// default success threshold, and BytesIn counts the bodies it answered
// though results keep none of them.
func TestRun_thresholdsAndBytesIn(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("0123456789"))
	}))
	defer srv.Close()
	ths, _ := ParseThresholds(nil)
	spec := Spec{URL: srv.URL, Pacing: Pacing{Rate: 100}, Duration: 5 * time.Second, MaxRequests: 5, Thresholds: ths}
	var kept int
	rep, err := Run(context.Background(), spec, func(r *vegeta.Result) error { kept += len(r.Body); return nil })
	var te *ThresholdError
	if !errors.As(err, &te) || len(te.Missed) != 1 || te.Missed[0].Threshold.Metric != "success" {
		t.Fatalf("Run against a failing target: %v; want the success threshold missed", err)
	}
	if rep.Metrics.BytesIn.Total != 50 || kept != 0 {
		t.Errorf("BytesIn %d, body bytes kept %d; want 50 (5 bodies of 10) and 0", rep.Metrics.BytesIn.Total, kept)
	}
}

func TestRun_bodyTemplateUnknownField(t *testing.T) {
	t.Parallel()
	_, err := Run(context.Background(), Spec{URL: "http://127.0.0.1:1/", Body: []byte(`{"n":{{.Foo}}}`),
		Pacing: Pacing{Rate: 1}, Duration: time.Second}, nil)
	if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), "no field Foo") || strings.Contains(err.Error(), "BodyData") {
		t.Fatalf("Run with {{.Foo}}: %v; want an ErrSpec naming Foo and no Go type", err)
	}
}
