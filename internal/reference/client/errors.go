package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Sentinel errors. Every error the client returns after trying wraps one of
// them (inside a *RetryError) or is a *StatusError, so callers branch with
// errors.Is and errors.As rather than on message text.
var (
	// ErrDeadline means the overall deadline passed, or the next wait would
	// have reached it. errors.Is(err, context.DeadlineExceeded) is also true.
	ErrDeadline error = deadlineError{}
	// ErrRetryAfterTooLong means the server asked for a Retry-After longer
	// than the client's limit or its remaining budget, so it gave up at once.
	ErrRetryAfterTooLong = errors.New("client: Retry-After longer than the client will wait")
	// ErrAttemptsExhausted means every allowed attempt failed retryably.
	ErrAttemptsExhausted = errors.New("client: attempts exhausted")
	// ErrAttemptTimeout marks an attempt that got no response within its
	// per-attempt timeout; it is retried while attempts and budget remain.
	ErrAttemptTimeout = errors.New("client: attempt timed out")
	// ErrInvalidRequest means the request was rejected before sending.
	ErrInvalidRequest = errors.New("client: invalid request")
)

type deadlineError struct{}

func (deadlineError) Error() string { return "client: overall deadline exceeded" }

// Is makes ErrDeadline match context.DeadlineExceeded, so code that already
// handles context deadlines handles the client's too.
func (deadlineError) Is(target error) bool { return target == context.DeadlineExceeded }

// Problem is an RFC 9457 problem details body.
type Problem struct {
	Type     string `json:"type,omitempty"`
	Title    string `json:"title,omitempty"`
	Status   int    `json:"status,omitempty"`
	Detail   string `json:"detail,omitempty"`
	Instance string `json:"instance,omitempty"`
}

// StatusError is a non-success answer from the server. On its own it means
// the status is not retryable (4xx other than 409 and 429); inside a
// *RetryError it is the last answer before the client gave up.
type StatusError struct {
	Status   int      // HTTP status code
	Problem  *Problem // the decoded application/problem+json body, or nil
	Body     []byte   // the raw body, truncated to 1 MiB
	Attempts int      // attempts made so far, this one included
}

var _ error = (*StatusError)(nil)

// Error names the status, the problem's title and detail, and the attempt.
func (e *StatusError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "client: %d %s", e.Status, http.StatusText(e.Status))
	if e.Problem != nil {
		for _, s := range []string{e.Problem.Title, e.Problem.Detail} {
			if s != "" {
				b.WriteString(": " + s)
			}
		}
	}
	fmt.Fprintf(&b, " (attempt %d)", e.Attempts)
	return b.String()
}

// RetryError reports that the client stopped retrying a retryable failure.
// Cause says why it stopped (it wraps ErrDeadline, ErrRetryAfterTooLong,
// ErrAttemptsExhausted or the caller's context error); Last is the final
// attempt's outcome (a *StatusError or a transport error), nil if none ran.
//
// After a RetryError from CreatePayment the payment may or may not exist:
// retry later with the same PaymentRequest and Key to find out without
// risking a second charge.
type RetryError struct {
	Op       string // "CreatePayment" or "GetPayment"
	Key      string // the idempotency key every attempt carried; empty for GET
	Attempts int
	Cause    error
	Last     error
}

var _ error = (*RetryError)(nil)

// Error says why the client gave up and what the last attempt got.
func (e *RetryError) Error() string {
	msg := fmt.Sprintf("client: %s: gave up after %d attempt(s): %v", e.Op, e.Attempts, e.Cause)
	if e.Last != nil {
		msg += "; last: " + e.Last.Error()
	}
	return msg
}

// Unwrap exposes both Cause and Last to errors.Is and errors.As.
func (e *RetryError) Unwrap() []error {
	if e.Last == nil {
		return []error{e.Cause}
	}
	return []error{e.Cause, e.Last}
}
