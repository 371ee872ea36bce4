package certify

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/resilcheck/resilcheck/internal/launch"
)

// abort records in the report why no check ran: stopped by a signal before
// the target was ready (verdict interrupted), or the target could not be
// launched or never became healthy (verdict inconclusive, with its last
// output); Err returns cause from then on.
func (r *Result) abort(ctx context.Context, cause error) {
	why, _, _ := strings.Cut(cause.Error(), "; last output:")
	why, _, _ = strings.Cut(why, "\n")
	if ctx.Err() != nil {
		r.Report.Interrupted = "stopped by a signal before the target was ready: " + why
		r.cause = fmt.Errorf("%w before the target was ready: %s", ErrInterrupted, why)
		return
	}
	r.Report.Aborted = why
	r.Report.TargetOutput = launch.LastOutput(cause)
	r.cause = cause
	if !errors.Is(cause, ErrUnhealthy) && !errors.Is(cause, launch.ErrUnhealthy) {
		r.cause = fmt.Errorf("certify: %w", cause) // not the target's doing: an internal error, exit 5
	}
}
