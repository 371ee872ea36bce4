package clients

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/headers"
)

// Step is the server's answer to one attempt: a status (with Retry-After in
// one of its forms), a connection reset, or a stall. It is a fault of the
// stand-in proxy, one rule per attempt.
type Step struct {
	// Status is the answer's status; 0 = 200 when Fault is empty.
	Status int `yaml:"status" attr:"status"`
	// RetryAfter, when > 0, is sent as Retry-After in Form.
	RetryAfter time.Duration `yaml:"retry_after" attr:"retry_after"`
	// Form is how Retry-After is written: delay-seconds (the default),
	// imf-fixdate, rfc850 or asctime (RFC 9110 §5.6.7).
	Form string `yaml:"form" attr:"form"`
	// Fault is reset (a TCP RST before any answer) or stall (no answer
	// until the client gives the attempt up); empty = answer with Status.
	Fault string `yaml:"fault" attr:"fault"`
	// Delay, when > 0, holds the answer this long: a slow attempt, which a
	// hedging client copies.
	Delay time.Duration `yaml:"delay" attr:"delay"`
}

// The Retry-After forms (RFC 9110 §10.2.3 delay-seconds, and the three
// HTTP-date formats of §5.6.7), as package headers names them, in lower case.
const (
	FormSeconds    = "delay-seconds"
	FormIMFFixdate = "imf-fixdate"
	FormRFC850     = "rfc850"
	FormAsctime    = "asctime"
)

// Step faults.
const (
	FaultReset = "reset"
	FaultStall = "stall"
)

var (
	forms      = []string{FormSeconds, FormIMFFixdate, FormRFC850, FormAsctime}
	stepFaults = []string{FaultReset, FaultStall}
)

var _ faults.Fault = Step{}
var _ faults.Validator = Step{}

func init() { faults.Register("client-step", func() faults.Fault { return new(Step) }) }

// Validate rejects a status outside [200, 599], an unknown form or fault,
// and a Retry-After on a step that sends no status.
func (s Step) Validate() error {
	switch {
	case s.Fault != "" && !slices.Contains(stepFaults, s.Fault):
		return fmt.Errorf("fault %q: want one of %v", s.Fault, stepFaults)
	case s.Fault != "" && (s.Status != 0 || s.RetryAfter != 0):
		return fmt.Errorf("fault %s sends no answer: no status or retry_after", s.Fault)
	case s.Status != 0 && (s.Status < 200 || s.Status > 599):
		return fmt.Errorf("status %d not in [200, 599]", s.Status)
	case s.Form != "" && !slices.Contains(forms, s.Form):
		return fmt.Errorf("form %q: want one of %v", s.Form, forms)
	case s.RetryAfter < 0 || s.RetryAfter%time.Second != 0:
		return fmt.Errorf("retry_after %s: want whole seconds", s.RetryAfter)
	case s.Form != "" && s.RetryAfter == 0:
		return errors.New("form without retry_after")
	case s.Delay < 0 || s.Delay > 0 && s.Fault != "":
		return fmt.Errorf("delay %s: want a positive hold of an answer, not of a %s", s.Delay, s.Fault)
	}
	return nil
}

// status is what the step answers, 0 for a reset or stall.
func (s Step) status() int {
	switch {
	case s.Fault != "":
		return 0
	case s.Status == 0:
		return http.StatusOK
	}
	return s.Status
}

// retryable says whether the step is a failure a retry may cure.
func (s Step) retryable() bool {
	st := s.status()
	return st == 0 || st == 408 || st == 429 || st >= 500
}

// Inject answers the attempt as the step says.
func (s Step) Inject(ex *faults.Exchange) error {
	switch s.Fault {
	case FaultReset:
		return ex.Lose(faults.LoseReset)
	case FaultStall:
		if err := ex.Hold(0); err != nil {
			return err // the client gave the attempt up, or the run ended
		}
	}
	if s.Delay > 0 {
		if err := ex.Sleep(s.Delay); err != nil {
			return err // the client cancelled the attempt
		}
	}
	h := map[string]string{"Content-Type": "application/json"}
	if s.RetryAfter > 0 {
		h["Retry-After"] = s.retryAfterValue(ex.Now())
	}
	st := s.status()
	body := []byte(`{}`) // decodes into whatever a client expects
	if st >= 300 {
		h["Content-Type"] = "application/problem+json"
		body = fmt.Appendf(nil, `{"title":%q,"status":%d}`, http.StatusText(st), st)
	}
	return ex.Respond(st, h, body)
}

// retryAfterValue renders Retry-After at now. A date names a whole second
// at least half a second past now+RetryAfter, so the wait it asks for is
// in (RetryAfter+0.5s, RetryAfter+1.5s]: a client that cannot read the date
// and falls back to waiting RetryAfter is early by half a second at least,
// well beyond the slack, whatever the sub-second part of now.
func (s Step) retryAfterValue(now time.Time) string {
	at := now.UTC().Add(s.RetryAfter + 1500*time.Millisecond).Truncate(time.Second)
	switch s.Form {
	case FormIMFFixdate:
		return at.Format(headers.IMFFixdate)
	case FormRFC850:
		return at.Format(headers.RFC850Date)
	case FormAsctime:
		return at.Format(headers.ASCTimeDate)
	}
	return strconv.FormatInt(int64(s.RetryAfter/time.Second), 10)
}

// retryAfterDue returns when the next attempt may come at the earliest
// after a response with Retry-After value v that finished at sent, and the
// form v is written in; ok is false when v is none of them.
func retryAfterDue(v string, sent time.Time) (due time.Time, form string, ok bool) {
	ra, err := headers.ParseRetryAfter(v, sent)
	if err != nil {
		return time.Time{}, "", false
	}
	return sent.Add(ra.Delay), strings.ToLower(ra.Form), true
}
