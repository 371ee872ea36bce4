package clients

import "context"

// Call is one operation the client under test performs: the request it
// sends, with its retries, to URL.
type Call struct {
	Scenario  string // the scenario's ID (with -N for its N-th instance)
	URL       string // absolute: Base + "/call"
	Base      string // absolute: every path under it reaches the scenario (for a client that appends its own)
	Method    string
	Key       string // the idempotency key to send on every attempt; empty = none
	KeyHeader string // the header to send Key in
	Body      string // the request body; empty for GET
}

// Client performs a Call, retrying as it does, and reports success (nil)
// or failure. It must return when ctx is done.
type Client interface {
	Do(ctx context.Context, c Call) error
}

// Func adapts a function to Client.
type Func func(ctx context.Context, c Call) error

// Do calls f.
func (f Func) Do(ctx context.Context, c Call) error { return f(ctx, c) }
