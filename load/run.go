package load

import (
	"context"
	"errors"
	"fmt"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// sinkBuffer decouples vegeta's unbuffered results channel from the sink, so
// a sink that is briefly slow does not hold up workers and distort pacing.
const sinkBuffer = 4096

// Run performs the attack spec describes and returns its report. sink, if
// not nil, receives every result in completion order on one goroutine of its
// own; it must not retain the *Result beyond the call. Run blocks until the
// attack ends (its Duration or MaxRequests reached, or ctx done) and every
// result reached sink.
//
// The error is a *ShortfallError (the report is still returned) when fewer
// requests were sent than the pacer scheduled beyond the tolerance, else a
// *ThresholdError when the run missed one of spec.Thresholds, ctx's
// error when ctx ended the attack early (the partial report is returned),
// an error wrapping ErrSpec for an invalid spec, or the sink's first error.
func Run(ctx context.Context, spec Spec, sink func(*vegeta.Result) error) (*Report, error) {
	if err := spec.validate(); err != nil {
		return nil, err
	}
	pacer, err := spec.Pacing.Pacer()
	if err != nil {
		return nil, err
	}
	tgt, err := newTargeter(spec)
	if err != nil {
		return nil, err
	}
	// A fresh Attacker per run: vegeta's Attacker is single-use. Client goes
	// last and alone: the other transport options assume *http.Transport.
	workers := uint64(vegeta.DefaultWorkers)
	if spec.MaxWorkers > 0 {
		workers = min(workers, spec.MaxWorkers)
	}
	opts := []func(*vegeta.Attacker){
		vegeta.Workers(workers),
		// Read whole bodies so BytesIn counts them (vegeta counts what it
		// keeps); the loop below trims them to MaxBody.
		vegeta.MaxBody(-1),
		vegeta.Client(newClient(spec.timeout(), 256)),
	}
	if spec.MaxWorkers > 0 {
		opts = append(opts, vegeta.MaxWorkers(spec.MaxWorkers))
	}
	atk := vegeta.NewAttacker(opts...)

	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-ctx.Done():
			atk.Stop()
		case <-stopped:
		}
	}()

	var sinkErr error
	buf := make(chan *vegeta.Result, sinkBuffer)
	sinkDone := make(chan struct{})
	go func() {
		defer close(sinkDone)
		for r := range buf {
			if sink != nil && sinkErr == nil {
				sinkErr = sink(r)
			}
		}
	}()

	rep := &Report{Requested: expectedHits(pacer, spec.Duration) / spec.Duration.Seconds(), Pacer: fmt.Sprint(pacer)}
	rep.Expected = expectedHits(pacer, spec.Duration)
	if spec.MaxRequests > 0 {
		rep.Expected = min(rep.Expected, float64(spec.MaxRequests))
	}
	start := time.Now()
	for res := range atk.Attack(tgt.target, pacer, spec.Duration, spec.name()) {
		if res.Error == vegeta.ErrNoTargets.Error() {
			continue // the end of MaxRequests, reported once per worker
		}
		if spec.MaxBody >= 0 && int64(len(res.Body)) > spec.MaxBody {
			res.Body = res.Body[:spec.MaxBody:spec.MaxBody]
		}
		rep.Metrics.Add(res)
		rep.Sent++
		buf <- res
	}
	rep.Elapsed = time.Since(start)
	close(buf)
	<-sinkDone
	rep.Metrics.Close()
	rep.Achieved = float64(rep.Sent) / min(rep.Elapsed, spec.Duration).Seconds()
	rep.Tolerance = spec.tolerance()

	switch {
	case ctx.Err() != nil:
		rep.Interrupted = true
		return rep, fmt.Errorf("load: attack stopped after %d requests: %w", rep.Sent, ctx.Err())
	case sinkErr != nil:
		return rep, fmt.Errorf("load: result sink: %w", sinkErr)
	}
	outcomes, thresholdErr := Judge(&rep.Metrics, spec.Thresholds)
	rep.Thresholds = outcomes
	if float64(rep.Sent) < rep.Expected*(1-rep.Tolerance)-1 {
		rep.Shortfall = true
		return rep, &ShortfallError{Requested: rep.Requested, Achieved: rep.Achieved,
			Sent: rep.Sent, Expected: rep.Expected, Tolerance: rep.Tolerance}
	}
	return rep, thresholdErr
}

// IsShortfall reports whether err is (or wraps) a *ShortfallError.
func IsShortfall(err error) bool {
	var s *ShortfallError
	return errors.As(err, &s)
}
