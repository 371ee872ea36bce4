package suites

import (
	"context"
)

// noteRefusal books o in the run's quota book (Harness.NoteRefusal), for
// at most the suite's load cap.
func noteRefusal(h *Harness, o Observation) { h.NoteRefusal(o, rlConfig(h).maxLoad()) }

// rlTenant is the next tenant for a rate-limit check, once its quota is
// back (Case.QuotaTenant), waiting at most the suite's load cap.
func rlTenant(ctx context.Context, c *Case) string {
	return c.QuotaTenant(ctx, rlConfig(c.Harness).maxLoad())
}
