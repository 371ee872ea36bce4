package load

import (
	"fmt"
	"io"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Report is what an attack achieved.
type Report struct {
	// Metrics are vegeta's metrics over every result (ErrNoTargets excluded).
	Metrics vegeta.Metrics
	// Pacer describes the schedule, as vegeta prints it.
	Pacer string
	// Requested is the mean rate the pacer scheduled over the Duration, and
	// Expected the requests it scheduled.
	Requested float64
	Expected  float64
	// Achieved is Sent over the attack's elapsed time (at most Duration).
	Achieved float64
	Sent     int
	Elapsed  time.Duration
	// Tolerance is the share of Expected that could be missing.
	Tolerance float64
	// Shortfall is set when fewer requests than Expected·(1−Tolerance)−1
	// were sent: the target (or this machine) could not keep the rate, and
	// the run proves nothing about the rate asked for.
	Shortfall bool
	// Interrupted is set when the context ended the attack early.
	Interrupted bool
	// Thresholds are the Spec's thresholds judged on this run.
	Thresholds []Outcome
}

// ShortfallError reports an attack that sent fewer requests than its pacer
// scheduled, beyond the tolerance.
type ShortfallError struct {
	Requested, Achieved float64 // requests per second
	Sent                int
	Expected            float64
	Tolerance           float64
}

func (e *ShortfallError) Error() string {
	return fmt.Sprintf("load: rate shortfall: achieved %.2f req/s of %.2f requested (%d of %.0f requests sent, tolerance %.0f%%)",
		e.Achieved, e.Requested, e.Sent, e.Expected, 100*e.Tolerance)
}

// WriteText writes vegeta's text report followed by the requested and
// achieved rates and the shortfall verdict.
func (r *Report) WriteText(w io.Writer) error {
	if err := vegeta.NewTextReporter(&r.Metrics).Report(w); err != nil {
		return fmt.Errorf("load: text report: %w", err)
	}
	verdict := "ok"
	switch {
	case r.Interrupted:
		verdict = "interrupted"
	case r.Shortfall:
		verdict = "SHORTFALL"
	}
	if _, err := fmt.Fprintf(w, "Rate          [requested, achieved]        %.2f, %.2f req/s (%d of %.0f requests, tolerance %.0f%%): %s\n",
		r.Requested, r.Achieved, r.Sent, r.Expected, 100*r.Tolerance, verdict); err != nil {
		return err
	}
	for _, o := range r.Thresholds {
		word := "ok"
		if !o.Passed {
			word = "MISSED"
		}
		if _, err := fmt.Fprintf(w, "Threshold     %-30s observed %s: %s\n", o.Threshold.Expr, o.Threshold.Format(o.Observed), word); err != nil {
			return err
		}
	}
	return nil
}
