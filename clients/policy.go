package clients

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Policy is what a client declares about its retries. The checks judge the
// client against it; a zero field is undeclared, and the checks that need it
// are not applicable.
type Policy struct {
	// MaxAttempts caps the attempts of one operation, the first included.
	MaxAttempts int
	// Deadline bounds one operation, every attempt and wait included.
	Deadline time.Duration
	// AttemptTimeout bounds one attempt; 0 = the client declares none, and
	// the scenarios that stall an attempt are not run.
	AttemptTimeout time.Duration
	// Methods lists the methods the client retries; empty = every method.
	Methods []string
	// KeyHeader is the idempotency key's header; empty = Idempotency-Key.
	KeyHeader string
	// HedgeDelay is how long an attempt is outstanding before the client
	// sends another copy; 0 = the client declares no hedging, and the
	// scenarios that answer slowly are not run.
	HedgeDelay time.Duration
	// HedgeCopies caps the copies of one attempt, the first included;
	// 0 = 2 (one hedge).
	HedgeCopies int
}

// copies is the declared cap on copies per attempt, or 2.
func (p Policy) copies() int {
	if p.HedgeCopies > 0 {
		return p.HedgeCopies
	}
	return 2
}

// DefaultKeyHeader is the idempotency key's header when the policy names none.
const DefaultKeyHeader = "Idempotency-Key"

func (p Policy) keyHeader() string {
	if p.KeyHeader == "" {
		return DefaultKeyHeader
	}
	return p.KeyHeader
}

// retries says whether the client declares that it retries method.
func (p Policy) retries(method string) bool {
	return len(p.Methods) == 0 || slices.ContainsFunc(p.Methods, func(m string) bool { return strings.EqualFold(m, method) })
}

// Validate rejects negative values.
func (p Policy) Validate() error {
	if p.MaxAttempts < 0 || p.Deadline < 0 || p.AttemptTimeout < 0 || p.HedgeDelay < 0 || p.HedgeCopies < 0 {
		return fmt.Errorf("clients: policy: max attempts, deadline, attempt timeout and hedging must not be negative")
	}
	return nil
}

func (p Policy) String() string {
	var parts []string
	if p.MaxAttempts > 0 {
		parts = append(parts, fmt.Sprintf("at most %d attempts", p.MaxAttempts))
	}
	if p.Deadline > 0 {
		parts = append(parts, fmt.Sprintf("deadline %s", p.Deadline))
	}
	if p.AttemptTimeout > 0 {
		parts = append(parts, fmt.Sprintf("attempt timeout %s", p.AttemptTimeout))
	}
	if len(p.Methods) > 0 {
		parts = append(parts, "retries "+strings.Join(p.Methods, ", "))
	}
	if p.HedgeDelay > 0 {
		parts = append(parts, fmt.Sprintf("hedges after %s, %d copies at most", p.HedgeDelay, p.copies()))
	}
	if len(parts) == 0 {
		return "nothing declared"
	}
	return strings.Join(parts, "; ")
}
