package store

import (
	"context"
	"time"
)

// Event is the effect of one webhook event the payments service received:
// a settlement of Amount, recorded once per event id when deduplicated.
type Event struct {
	ID         string // the webhook-id, the same on every delivery of the event
	Type       string // the event's type, e.g. payment.settled
	Amount     int64
	ReceivedAt time.Time
}

// Inbox is the webhook receiver's part of the store: an inbox of event ids
// and the effects the events made.
type Inbox interface {
	// Receive records ev's effect. With dedupe it first inserts ev.ID into
	// the inbox, in the same transaction as the effect, and records
	// nothing when the id is already there; fresh reports whether the
	// effect was recorded. Without dedupe (a defect) every call records it.
	Receive(ctx context.Context, ev Event, dedupe bool) (fresh bool, err error)
	// EventEffects returns how many effects were recorded for event id.
	EventEffects(ctx context.Context, id string) (int, error)
}
