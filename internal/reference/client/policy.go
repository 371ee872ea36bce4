package client

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Policy defaults, applied wherever a Policy field is zero or negative.
const (
	DefaultMaxAttempts   = 4
	DefaultBase          = 100 * time.Millisecond
	DefaultCap           = 2 * time.Second
	DefaultMaxRetryAfter = 30 * time.Second
)

// Policy is the retry schedule. The zero value is usable: every zero or
// negative field means its Default constant.
type Policy struct {
	MaxAttempts   int           // attempts per logical operation, the first included; zero means 4
	Base          time.Duration // backoff before the first retry is drawn from [0, Base]; zero means 100ms
	Cap           time.Duration // no backoff bound exceeds Cap; zero means 2s
	MaxRetryAfter time.Duration // a longer Retry-After gives up instead of waiting (HS-10); zero means 30s
}

func (p Policy) normalized() Policy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = DefaultMaxAttempts
	}
	if p.Base <= 0 {
		p.Base = DefaultBase
	}
	if p.Cap <= 0 {
		p.Cap = DefaultCap
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = DefaultMaxRetryAfter
	}
	return p
}

// Bound is the full-jitter upper bound before retry number retry+1:
// min(Cap, Base·2^retry), computed without overflow for any retry.
func (p Policy) Bound(retry int) time.Duration {
	p = p.normalized()
	b := p.Base
	for i := 0; i < retry && b < p.Cap; i++ {
		if b > p.Cap/2 {
			return p.Cap
		}
		b *= 2
	}
	return min(b, p.Cap)
}

// NextDelay returns how long to wait before the next attempt, given that
// retry attempts have already been retried (0 before the first retry) and
// remaining budget is left before the overall deadline.
//
// Without a Retry-After the wait is full jitter: uniform in
// [0, min(Bound(retry), remaining)). With one it is max(retryAfter, jitter),
// so it is never shorter than the server asked (BO-07) yet still spread out.
// The wait is always shorter than remaining, so an attempt can still start.
// It gives up, returning an error instead of a wait, when retryAfter exceeds
// MaxRetryAfter (ErrRetryAfterTooLong) or the required wait reaches the
// deadline (ErrDeadline; also ErrRetryAfterTooLong when a Retry-After caused
// it). rnd must not be nil; NextDelay draws from it exactly once when it
// returns a wait, and is otherwise pure.
func NextDelay(p Policy, retry int, retryAfter time.Duration, hasRetryAfter bool, remaining time.Duration, rnd *rand.Rand) (time.Duration, error) {
	if rnd == nil {
		return 0, errors.New("client: NextDelay: nil *rand.Rand")
	}
	p = p.normalized()
	required := time.Duration(0)
	if hasRetryAfter {
		required = max(retryAfter, 0)
		if required > p.MaxRetryAfter {
			return 0, fmt.Errorf("client: Retry-After %s exceeds the %s limit: %w", required, p.MaxRetryAfter, ErrRetryAfterTooLong)
		}
	}
	if required >= remaining {
		if hasRetryAfter {
			return 0, fmt.Errorf("client: Retry-After %s does not fit the remaining budget %s: %w (%w)",
				required, max(remaining, 0), ErrRetryAfterTooLong, ErrDeadline)
		}
		return 0, fmt.Errorf("client: no budget left for a retry: %w", ErrDeadline)
	}
	// remaining > required ≥ 0, so the draw range [0, upper] is non-empty and
	// upper < remaining.
	upper := min(p.Bound(max(retry, 0)), remaining-1)
	jitter := time.Duration(rnd.Uint64N(uint64(upper) + 1))
	return max(required, jitter), nil
}
