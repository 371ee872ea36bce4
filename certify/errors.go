package certify

import (
	"errors"
	"fmt"

	"github.com/resilcheck/resilcheck/reports"
)

// ErrUnhealthy reports a target that could not be reached or never became
// healthy: the run is inconclusive, not a verdict on the target.
var ErrUnhealthy = errors.New("certify: target is not healthy")

// ErrConfig reports a configuration the run cannot start with, such as an
// unknown suite or check; it is the user's to fix.
var ErrConfig = errors.New("certify: invalid configuration")

// The verdicts other than a pass, as errors (see Result.Err).
var (
	ErrFailed       = errors.New("certify: certification failed")       // at least one check failed
	ErrInconclusive = errors.New("certify: certification inconclusive") // no check failed, but not every check could judge
	ErrInterrupted  = errors.New("certify: interrupted")                // stopped before every check ran
)

// Err returns the report's verdict as an error: nil when the gate passed,
// else an error wrapping ErrFailed, ErrInconclusive or ErrInterrupted; for
// a run that aborted before its checks, the cause (wrapping ErrUnhealthy,
// or ErrInterrupted when a signal stopped the launch).
func (r *Result) Err() error {
	if r.cause != nil {
		return r.cause
	}
	switch r.Report.Verdict {
	case reports.VerdictPass:
		return nil
	case reports.VerdictFail:
		return ErrFailed
	case reports.VerdictInterrupted:
		return fmt.Errorf("%w: %s; the partial report says so", ErrInterrupted, r.Report.Interrupted)
	default:
		return ErrInconclusive
	}
}
