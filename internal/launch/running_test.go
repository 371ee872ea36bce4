package launch

import (
	"context"
	"errors"
	"testing"
)

func TestRunning_Stop(t *testing.T) {
	t.Parallel()
	calls := 0
	r := &Running{StopFunc: func(context.Context) error { calls++; return errors.New("gone") }}
	for range 2 {
		if err := r.Stop(t.Context()); err == nil || err.Error() != "gone" {
			t.Errorf("Stop() = %v; want the first call's error", err)
		}
	}
	if calls != 1 {
		t.Errorf("StopFunc ran %d times; want 1", calls)
	}
}
