package client

import "time"

// Attempt describes one finished attempt, as reported to WithOnAttempt.
type Attempt struct {
	Op            string        // "CreatePayment" or "GetPayment"
	N             int           // 1 for the first attempt
	Key           string        // the idempotency key, unquoted; empty for GET
	Budget        time.Duration // the attempt's timeout, also sent in X-Request-Timeout-Ms
	Latency       time.Duration // from sending to the end of the response body or the error
	Status        int           // HTTP status; 0 when no response arrived
	Err           error         // transport error or ErrAttemptTimeout; nil when a response arrived
	RetryAfter    time.Duration // the server's Retry-After as a delay; valid when HasRetryAfter
	HasRetryAfter bool
	BadRetryAfter string        // an invalid Retry-After value, ignored in favour of backoff (HS-09)
	Retry         bool          // another attempt follows after Wait
	Wait          time.Duration // the wait before the next attempt; zero unless Retry
}
