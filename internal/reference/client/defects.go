package client

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

// WithDefects switches on ways real SDKs break a client contract (the
// defect.Client catalogue), so the client suite can prove it catches each.
// Never use it outside tests.
func WithDefects(s defect.Set) Option {
	return func(c *Client) error {
		for name, on := range s {
			if _, ok := defect.LookupClient(name); on && !ok {
				return fmt.Errorf("client: WithDefects: %s is not a defect of the SDK", name)
			}
		}
		c.defects = s
		return nil
	}
}

// retryable is retryableStatus as the client's defects bend it.
func (c *Client) retryable(status int) bool {
	switch {
	case c.defects.Has(defect.Client429Final) && status == 429:
		return false
	case c.defects.Has(defect.ClientRetryAny4xx) && status >= 400:
		return true
	}
	return retryableStatus(status)
}

// capReached reports whether attempt n was the last the cap allows.
func (c *Client) capReached(n int) bool {
	return n >= c.policy.MaxAttempts && !c.defects.Has(defect.ClientNoAttemptCap)
}

// defectiveDelay is the wait the schedule-bending defects draw instead of
// NextDelay's; ok is false when none is on. c.mu must be held.
func (c *Client) defectiveDelay(retry int, remaining time.Duration, rnd *rand.Rand) (time.Duration, bool) {
	switch {
	case c.defects.Has(defect.ClientNoJitter):
		return min(c.policy.Bound(retry), max(remaining-1, 0)), true
	case c.defects.Has(defect.ClientConstantBackoff):
		// A constant interval with jitter, as "constant backoff" options
		// give: every wait in [B/2, B] for B the second retry's bound.
		b := c.policy.Bound(1)
		return min(b/2+time.Duration(rnd.Uint64N(uint64(b-b/2)+1)), max(remaining-1, 0)), true
	}
	return 0, false
}
