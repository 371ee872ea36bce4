package store

import (
	"context"
	"encoding/json"
	"time"
)

// OutboxEvent is an event the payments service owes the broker: written
// in the transaction that records its payment, published by the relay,
// then marked.
type OutboxEvent struct {
	ID        string // the event's id, the payment's: its Nats-Msg-Id on every publish
	Payload   []byte // the event as JSON
	CreatedAt time.Time
}

// Outbox is the transactional outbox's part of the store (Richardson,
// Microservices Patterns §3.3.7): every succeeded payment's insert adds
// its event in the same transaction, so neither exists without the other.
type Outbox interface {
	// Unpublished returns up to limit events not yet marked published,
	// oldest first.
	Unpublished(ctx context.Context, limit int) ([]OutboxEvent, error)
	// MarkPublished marks the events ids published; the relay calls it
	// after the broker confirmed their publishes, so a crash in between
	// publishes them again, under the same ids.
	MarkPublished(ctx context.Context, ids ...string) error
}

// paymentEvent is the outbox row of p, or nil when p owes no event (a
// declined payment charged nothing).
func paymentEvent(p *Payment) *OutboxEvent {
	if p == nil || p.Status != "succeeded" {
		return nil
	}
	body, _ := json.Marshal(map[string]any{"type": "payment.succeeded", "id": p.ID, "key": p.Key,
		"amount": p.Amount, "currency": p.Currency, "charge_id": p.ChargeID})
	return &OutboxEvent{ID: p.ID, Payload: body, CreatedAt: p.CreatedAt}
}
