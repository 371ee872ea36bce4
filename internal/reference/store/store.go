// Package store keeps the payments service's idempotency records and payments.
// Two backends implement the same contract: embedded SQLite (pure Go, the
// default) and PostgreSQL. Open picks one from a store URL.
//
//	st, err := store.Open(ctx, "sqlite:/tmp/payments.db")
//	rec, owned, err := st.Claim(ctx, store.Record{Tenant: "acme", Key: k, ...}, time.Now())
package store

import (
	"context"
	"errors"
	"time"
)

// State is the lifecycle of an idempotency record.
type State string

// Record states.
const (
	InProgress State = "in_progress" // claimed by Owner until LeaseUntil
	Succeeded  State = "succeeded"   // Status and Body hold the response to replay
	Failed     State = "failed"      // a final error response to replay (e.g. declined)
)

// Record is one idempotency record, scoped by (Tenant, Key).
type Record struct {
	Tenant      string
	Key         string
	Fingerprint string // digest of the request; a reuse with another fingerprint is rejected
	PaymentID   string // assigned at the first claim and kept across takeovers, so the downstream key is stable
	State       State
	Owner       string    // the process/request that may complete the record
	LeaseUntil  time.Time // an in-progress record whose lease has passed may be taken over
	Status      int       // stored response status (completed records)
	Body        []byte    // stored response body, replayed byte for byte (read back as nil when empty)
	CreatedAt   time.Time
	ExpiresAt   time.Time // after this the key may be reused as new
}

// Payment is an acknowledged payment, readable by GET /v1/payments/{id}.
type Payment struct {
	ID        string
	Tenant    string
	Key       string
	Amount    int64
	Currency  string
	ChargeID  string // the processor's charge id
	Status    string // "succeeded" or "declined"
	CreatedAt time.Time
}

// Errors callers branch on.
var (
	ErrNotFound = errors.New("store: not found")
	ErrNotOwner = errors.New("store: record is not owned by the caller")
)

// Store is the persistence contract of the payments service. Implementations
// are safe for concurrent use by many goroutines and by several processes
// sharing the same database.
type Store interface {
	// Claim atomically inserts rec (State InProgress) unless an unexpired record
	// exists for (rec.Tenant, rec.Key). If one exists, is InProgress and its
	// lease has passed at now, Claim hands it to rec.Owner with rec.LeaseUntil,
	// keeping its PaymentID and Fingerprint. It returns the record as stored
	// and owned=true when the caller now owns it. An expired record (ExpiresAt
	// before now) is replaced as if absent.
	//
	// "Passed" and "before" include equality: LeaseUntil <= now, ExpiresAt <= now.
	// A zero ExpiresAt never expires. A takeover also requires rec.Fingerprint to
	// equal the stored one, so a different payload never inherits the
	// PaymentID (owned=false; the caller answers 422). Times are stored in UTC
	// with microsecond precision.
	Claim(ctx context.Context, rec Record, now time.Time) (stored Record, owned bool, err error)

	// Complete stores the final state, status and body of the record owned by
	// owner and, when p is non-nil, inserts p, in one transaction. It returns
	// ErrNotOwner if owner no longer holds the record.
	Complete(ctx context.Context, tenant, key, owner string, state State, status int, body []byte, p *Payment) error

	// Release ends owner's lease at once so that a retry can take the record
	// over and re-drive it with the same PaymentID. ErrNotOwner as Complete.
	Release(ctx context.Context, tenant, key, owner string) error

	// Lookup returns the record for (tenant, key) or ErrNotFound, without
	// claiming it. Only the racy-idempotency defect uses it to check-then-act.
	Lookup(ctx context.Context, tenant, key string) (Record, error)

	// Put upserts rec unconditionally (last writer wins) and inserts p when
	// non-nil. Only defects use it: it is the check-then-act write.
	Put(ctx context.Context, rec Record, p *Payment) error

	// Payment returns the payment with id owned by tenant, or ErrNotFound.
	Payment(ctx context.Context, tenant, id string) (Payment, error)

	// Inbox records the webhook events the service receives.
	Inbox

	// Outbox holds the events of succeeded payments until the relay
	// publishes them.
	Outbox

	// Close releases the database handle.
	Close() error
}
