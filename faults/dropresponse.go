package faults

import (
	"errors"
	"io"
	"time"
)

// DropResponse forwards the request, lets the upstream finish its answer
// (so whatever it does is committed), then loses that answer: the client's
// connection is closed (Mode "close", the default) or reset ("reset"), or it
// gets Status (default 504) instead ("status"), after Hold. Over HTTP/2,
// close and reset both reset the stream (RST_STREAM).
type DropResponse struct {
	Mode   string        `attr:"mode"`
	Hold   time.Duration `attr:"hold"`
	Status int           `attr:"status"`
}

var _ Fault = DropResponse{}
var _ Validator = DropResponse{}

func init() { Register("drop-response", func() Fault { return new(DropResponse) }) }

// Validate checks the mode, status and hold.
func (f DropResponse) Validate() error {
	if f.Hold < 0 {
		return errors.New("hold must not be negative")
	}
	return checkLoseMode(f.Mode, f.Status)
}

// Inject forwards, drains the upstream answer, holds, then loses it.
func (f DropResponse) Inject(ex *Exchange) error {
	resp, err := ex.Forward()
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil && ex.Context().Err() != nil {
		return ex.Context().Err()
	}
	if err := ex.Sleep(f.Hold); err != nil {
		return err
	}
	return loseAnswer(ex, f.Mode, f.Status)
}
