package faults

import (
	"errors"
	"fmt"
	"time"
)

// Abort answers with an error status instead of forwarding, e.g. 429 with
// Retry-After or 503. The upstream never sees the request.
type Abort struct {
	// Status is required, in [200, 599].
	Status int `attr:"status"`
	// Headers are set on the response, e.g. {"Retry-After": "1"}.
	Headers map[string]string `attr:"headers"`
	// Body is sent as is.
	Body string `attr:"body"`
	// Delay waits before answering.
	Delay time.Duration `attr:"delay"`
}

var _ Fault = Abort{}
var _ Validator = Abort{}

func init() { Register("abort", func() Fault { return new(Abort) }) }

// Validate requires a status.
func (f Abort) Validate() error {
	if f.Status < 200 || f.Status > 599 {
		return fmt.Errorf("status %d not in [200, 599]", f.Status)
	}
	if f.Delay < 0 {
		return errors.New("delay must not be negative")
	}
	return nil
}

// Inject waits Delay, then answers.
func (f Abort) Inject(ex *Exchange) error {
	if err := ex.Sleep(f.Delay); err != nil {
		return err
	}
	return ex.Respond(f.Status, f.Headers, []byte(f.Body))
}
