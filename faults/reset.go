package faults

import (
	"errors"
	"time"
)

// Reset aborts the client connection with a TCP RST before anything is
// forwarded, after Hold. Over HTTP/2 it resets the stream instead
// (RST_STREAM INTERNAL_ERROR); the connection's other streams go on.
type Reset struct {
	Hold time.Duration `attr:"hold"`
}

var _ Fault = Reset{}
var _ Validator = Reset{}

func init() { Register("reset", func() Fault { return new(Reset) }) }

// Validate checks the hold.
func (f Reset) Validate() error {
	if f.Hold < 0 {
		return errors.New("hold must not be negative")
	}
	return nil
}

// Inject holds, then resets.
func (f Reset) Inject(ex *Exchange) error {
	if err := ex.Sleep(f.Hold); err != nil {
		return err
	}
	return ex.Lose(LoseReset)
}
