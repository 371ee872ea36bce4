package faults

import (
	"errors"
	"time"
)

// Blackhole accepts the request and holds it without forwarding until the
// client gives up, the proxy closes, or Timeout passes (never, when zero);
// then the answer is lost as Mode says: "close" (default), "reset", or
// "status" with Status (default 504); over HTTP/2 close and reset reset the
// stream. If the rule is removed meanwhile, held requests are forwarded: the
// network healed.
type Blackhole struct {
	Timeout time.Duration `attr:"timeout"`
	Mode    string        `attr:"mode"`
	Status  int           `attr:"status"`
}

var _ Fault = Blackhole{}
var _ Validator = Blackhole{}

func init() { Register("blackhole", func() Fault { return new(Blackhole) }) }

// Validate checks the timeout and mode.
func (f Blackhole) Validate() error {
	if f.Timeout < 0 {
		return errors.New("timeout must not be negative")
	}
	return checkLoseMode(f.Mode, f.Status)
}

// Inject holds, then loses the answer or, if the rule went away, passes.
func (f Blackhole) Inject(ex *Exchange) error {
	err := ex.Hold(f.Timeout)
	switch {
	case errors.Is(err, ErrRuleRemoved):
		return ex.Pass()
	case err != nil:
		return err
	}
	return loseAnswer(ex, f.Mode, f.Status)
}
