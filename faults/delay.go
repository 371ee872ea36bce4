package faults

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Delay waits Duration ± Jitter, before forwarding (Phase "request", the
// default) or after the upstream answered and before responding (Phase
// "response").
type Delay struct {
	Duration time.Duration `attr:"duration"`
	// Jitter spreads the wait uniformly over [Duration-Jitter, Duration+Jitter],
	// never below zero.
	Jitter time.Duration `attr:"jitter"`
	// Phase is "request" (default) or "response".
	Phase string `attr:"phase"`
}

var _ Fault = Delay{}
var _ Validator = Delay{}

func init() { Register("delay", func() Fault { return new(Delay) }) }

// Validate checks durations and phase.
func (f Delay) Validate() error {
	switch {
	case f.Duration < 0 || f.Jitter < 0:
		return errors.New("duration and jitter must not be negative")
	case f.Phase != "" && f.Phase != "request" && f.Phase != "response":
		return fmt.Errorf("phase %q: want request or response", f.Phase)
	}
	return nil
}

// Wait returns the delay for ex, drawn from ex.Rand.
func (f Delay) Wait(ex *Exchange) time.Duration { return jittered(ex.Rand(), f.Duration, f.Jitter) }

// jittered is d spread uniformly over [d-j, d+j], never below zero; it
// draws from r only when j > 0, so a fault without jitter draws nothing.
func jittered(r *rand.Rand, d, j time.Duration) time.Duration {
	if j > 0 {
		d += time.Duration(r.Int64N(2*int64(j)+1)) - j
	}
	return max(d, 0)
}

// Inject waits, then passes the exchange through.
func (f Delay) Inject(ex *Exchange) error {
	d := f.Wait(ex)
	if f.Phase != "response" {
		if err := ex.Sleep(d); err != nil {
			return err
		}
		return ex.Pass()
	}
	resp, err := ex.Forward()
	if err != nil {
		return err
	}
	if err := ex.Sleep(d); err != nil {
		resp.Body.Close()
		return err
	}
	return ex.Reply(resp)
}
