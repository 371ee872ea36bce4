package client

import (
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net/http"
	"time"
)

// Option configures a Client in New; an invalid value makes New fail.
type Option func(*Client) error

// WithHTTPClient sends requests through hc. Leave hc.Timeout zero: the
// client sets per-attempt timeouts itself. The default is a fresh
// &http.Client{} on http.DefaultTransport.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) error {
		if hc == nil {
			return errors.New("client: WithHTTPClient(nil)")
		}
		c.hc = hc
		return nil
	}
}

// WithTenant sends X-Tenant-ID: tenant on every request. Without it the
// header is omitted and the gateway uses its default tenant ("public").
func WithTenant(tenant string) Option {
	return func(c *Client) error {
		if !printableASCII(tenant) {
			return fmt.Errorf("client: WithTenant(%q): want printable ASCII", tenant)
		}
		c.tenant = tenant
		return nil
	}
}

// WithMaxAttempts caps attempts per operation, the first included
// (default 4). n must be at least 1; 1 disables retries.
func WithMaxAttempts(n int) Option {
	return func(c *Client) error {
		if n < 1 {
			return fmt.Errorf("client: WithMaxAttempts(%d): want at least 1", n)
		}
		c.policy.MaxAttempts = n
		return nil
	}
}

// WithBackoff sets the full-jitter schedule: retry n waits up to
// min(cap, base·2^n), n from 0 (defaults 100ms and 2s). 0 < base ≤ cap.
func WithBackoff(base, cap time.Duration) Option {
	return func(c *Client) error {
		if base <= 0 || cap < base {
			return fmt.Errorf("client: WithBackoff(%s, %s): want 0 < base <= cap", base, cap)
		}
		c.policy.Base, c.policy.Cap = base, cap
		return nil
	}
}

// WithAttemptTimeout bounds each attempt (default 2s). Each attempt gets
// min(d, remaining overall budget), and says so in X-Request-Timeout-Ms.
func WithAttemptTimeout(d time.Duration) Option {
	return func(c *Client) error {
		if d < time.Millisecond {
			return fmt.Errorf("client: WithAttemptTimeout(%s): want at least 1ms", d)
		}
		c.attemptTimeout = d
		return nil
	}
}

// WithDeadline bounds each operation, all attempts and waits included
// (default 10s). A caller's context deadline that comes sooner wins.
func WithDeadline(d time.Duration) Option {
	return func(c *Client) error {
		if d < time.Millisecond {
			return fmt.Errorf("client: WithDeadline(%s): want at least 1ms", d)
		}
		c.deadline = d
		return nil
	}
}

// WithSeed seeds the jitter source, making the sequence of waits
// reproducible. Give each client in a fleet a different seed.
func WithSeed(seed uint64) Option {
	return func(c *Client) error {
		c.seed, c.seeded = seed, true
		return nil
	}
}

// WithSeedFrom seeds the jitter source from a hash of text (FNV-1a), so a
// name (a fleet member's, a test scenario's) picks a reproducible seed of
// its own.
func WithSeedFrom(text string) Option {
	h := fnv.New64a()
	h.Write([]byte(text))
	return WithSeed(h.Sum64())
}

// WithMaxRetryAfter sets the longest Retry-After the client will honour
// (default 30s); a longer one fails at once with ErrRetryAfterTooLong
// instead of blocking (HS-10).
func WithMaxRetryAfter(d time.Duration) Option {
	return func(c *Client) error {
		if d <= 0 {
			return fmt.Errorf("client: WithMaxRetryAfter(%s): want a positive duration", d)
		}
		c.policy.MaxRetryAfter = d
		return nil
	}
}

// WithKeyFunc makes idempotency keys with f, called once per logical
// operation (default: a random UUIDv4, IK-11). Keys must be non-empty
// printable ASCII; they are sent as RFC 8941 strings (IK-01). f must be
// safe for concurrent use and must never return a key used before.
func WithKeyFunc(f func() string) Option {
	return func(c *Client) error {
		if f == nil {
			return errors.New("client: WithKeyFunc(nil)")
		}
		c.newKey = f
		return nil
	}
}

// WithLogger logs one Debug record per attempt and a Warn record for an
// invalid Retry-After; nil discards (the default).
func WithLogger(l *slog.Logger) Option {
	return func(c *Client) error {
		if l == nil {
			l = slog.New(slog.DiscardHandler)
		}
		c.log = l
		return nil
	}
}

// WithOnAttempt calls f synchronously after every attempt, before any
// wait, for metrics and tests. f must not block, and must be safe for
// concurrent use if the client is shared.
func WithOnAttempt(f func(Attempt)) Option {
	return func(c *Client) error {
		c.onAttempt = f
		return nil
	}
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
