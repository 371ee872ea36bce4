package ratelimit

import (
	"context"

	"github.com/resilcheck/resilcheck/check"
)

// noteRefusal books o in the run's quota book (Harness.NoteRefusal), for
// at most the suite's load cap.
func noteRefusal(h *check.Harness, o check.Observation) { h.NoteRefusal(o, config(h).maxLoad()) }

// rlTenant is the next tenant for a rate-limit check, once its quota is
// back (Case.QuotaTenant), waiting at most the suite's load cap.
func rlTenant(ctx context.Context, c *check.Case) string {
	return c.QuotaTenant(ctx, config(c.Harness).maxLoad())
}
