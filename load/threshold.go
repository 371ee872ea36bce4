package load

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// DefaultThreshold is the success threshold a run is held to when the user
// sets none on success: a run where more than 1 % of requests failed is not
// the run that was asked for.
const DefaultThreshold = "success>=0.99"

// Threshold is one pass/fail condition on a run's metrics, written k6-style
// as METRIC OP VALUE: "success>=0.99", "success>=99%", "p99<500ms",
// "mean<=200ms". Metrics: success (the share of 2xx/3xx answers, 0..1 or a
// percentage), and latencies min, mean, max and pNN (any quantile, p50, p99,
// p99.9); OP is <, <=, > or >=.
type Threshold struct {
	Expr   string // as the user wrote it
	Metric string
	Op     string
	Value  float64 // a ratio for success, seconds for latencies
}

// ErrThreshold reports a threshold that cannot be parsed; it wraps ErrSpec.
var ErrThreshold = fmt.Errorf("%w: threshold", ErrSpec)

// ops is ordered so that two-character operators match before their prefix.
var ops = []string{"<=", ">=", "<", ">"}

// ParseThreshold parses one threshold expression.
func ParseThreshold(expr string) (Threshold, error) {
	s := strings.ReplaceAll(expr, " ", "")
	for _, op := range ops {
		metric, value, ok := strings.Cut(s, op)
		if !ok {
			continue
		}
		if strings.ContainsAny(value, "<>=") {
			break
		}
		t := Threshold{Expr: expr, Metric: strings.ToLower(metric), Op: op}
		v, err := t.parseValue(value)
		if err != nil {
			return Threshold{}, fmt.Errorf("%w %q: %w", ErrThreshold, expr, err)
		}
		t.Value = v
		return t, nil
	}
	return Threshold{}, fmt.Errorf("%w %q: want METRIC OP VALUE, e.g. success>=0.99 or p99<500ms (OP one of < <= > >=)", ErrThreshold, expr)
}

func (t Threshold) parseValue(v string) (float64, error) {
	if t.Metric == "success" {
		pct, isPct := strings.CutSuffix(v, "%")
		f, err := strconv.ParseFloat(pct, 64)
		if isPct {
			f /= 100
		}
		if err != nil || math.IsNaN(f) || f < 0 || f > 1 {
			return 0, fmt.Errorf("success %q: want a ratio in [0, 1] or a percentage", v)
		}
		return f, nil
	}
	if _, err := t.quantile(); err != nil {
		return 0, err
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("latency %q: want a duration such as 500ms or 1.5s", v)
	}
	return d.Seconds(), nil
}

// quantile maps a latency metric to its quantile: min 0, max 1, mean -1.
func (t Threshold) quantile() (float64, error) {
	switch t.Metric {
	case "min":
		return 0, nil
	case "max":
		return 1, nil
	case "mean":
		return -1, nil
	}
	if n, ok := strings.CutPrefix(t.Metric, "p"); ok {
		if q, err := strconv.ParseFloat(n, 64); err == nil && q > 0 && q < 100 {
			return q / 100, nil
		}
	}
	return 0, fmt.Errorf("unknown metric %q (known: success, min, mean, max, pNN such as p50, p99, p99.9)", t.Metric)
}

// Observe returns the metric's value in m: a ratio for success, seconds for
// latencies.
func (t Threshold) Observe(m *vegeta.Metrics) float64 {
	if t.Metric == "success" {
		return m.Success
	}
	q, _ := t.quantile() // validated by ParseThreshold
	switch q {
	case -1:
		return m.Latencies.Mean.Seconds()
	case 0:
		return m.Latencies.Min.Seconds()
	case 1:
		return m.Latencies.Max.Seconds()
	}
	return m.Latencies.Quantile(q).Seconds()
}

// Holds reports whether the observed value meets the threshold.
func (t Threshold) Holds(observed float64) bool {
	switch t.Op {
	case "<":
		return observed < t.Value
	case "<=":
		return observed <= t.Value
	case ">":
		return observed > t.Value
	}
	return observed >= t.Value
}

// Format renders a value of this threshold's metric as the user wrote it.
func (t Threshold) Format(v float64) string {
	if t.Metric == "success" {
		return fmt.Sprintf("%.2f%%", 100*v)
	}
	return time.Duration(v * float64(time.Second)).Round(time.Microsecond).String()
}

// Outcome is one threshold judged against a run.
type Outcome struct {
	Threshold Threshold
	Observed  float64
	Passed    bool
}

// ThresholdError reports the thresholds a run missed.
type ThresholdError struct{ Missed []Outcome }

func (e *ThresholdError) Error() string {
	parts := make([]string, len(e.Missed))
	for i, o := range e.Missed {
		parts[i] = fmt.Sprintf("%s (observed %s)", o.Threshold.Expr, o.Threshold.Format(o.Observed))
	}
	return "load: threshold missed: " + strings.Join(parts, ", ")
}

// ParseThresholds parses exprs and adds DefaultThreshold when none of them
// is on success.
func ParseThresholds(exprs []string) ([]Threshold, error) {
	var out []Threshold
	var errs []error
	onSuccess := false
	for _, e := range exprs {
		t, err := ParseThreshold(e)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		onSuccess = onSuccess || t.Metric == "success"
		out = append(out, t)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if !onSuccess {
		def, _ := ParseThreshold(DefaultThreshold)
		out = append([]Threshold{def}, out...)
	}
	return out, nil
}

// Judge evaluates thresholds against m; the error is a *ThresholdError when
// any is missed. A run without results misses every threshold: there is
// nothing to show that it held.
func Judge(m *vegeta.Metrics, thresholds []Threshold) ([]Outcome, error) {
	out := make([]Outcome, len(thresholds))
	var missed []Outcome
	for i, t := range thresholds {
		v := t.Observe(m)
		out[i] = Outcome{Threshold: t, Observed: v, Passed: m.Requests > 0 && t.Holds(v)}
		if !out[i].Passed {
			missed = append(missed, out[i])
		}
	}
	if len(missed) > 0 {
		return out, &ThresholdError{Missed: missed}
	}
	return out, nil
}
