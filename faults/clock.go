package faults

import (
	"context"
	"time"
)

// Clock is the source of time for the proxy and its faults. Implementations
// must be safe for concurrent use. Tests may use testing/synctest with
// SystemClock instead of a fake.
type Clock interface {
	// Now returns the current time, with a monotonic reading where possible.
	Now() time.Time
	// Sleep blocks for d or until ctx is done, whichever comes first, and
	// returns ctx's error in the latter case. A d <= 0 returns at once.
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock returns the Clock backed by package time.
func SystemClock() Clock { return systemClock{} }

type systemClock struct{}

var _ Clock = systemClock{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
