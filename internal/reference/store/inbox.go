package store

import (
	"context"
	"strings"
	"time"
)

// Event is the effect of one webhook event the payments service received:
// a settlement of Amount, recorded once per event id when deduplicated.
type Event struct {
	ID         string // the webhook-id, the same on every delivery of the event
	Type       string // the event's type, e.g. payment.settled
	Amount     int64
	ReceivedAt time.Time
	// State is the object state the event carries, applied with its
	// effect; nil for an event about no object.
	State *ObjectState
}

// ObjectState is the state of one object as an event reports it: a status
// as of Created (the event's creation time, Unix seconds), by which
// events about the object are ordered.
type ObjectState struct {
	Object  string
	Status  string
	Created int64
	// LastWriteWins applies the state whatever its Created (a defect): an
	// earlier event delivered late rolls the object back.
	LastWriteWins bool
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
	// Object returns the state the events about object id left; ok is
	// false when none was received.
	Object(ctx context.Context, id string) (st ObjectState, ok bool, err error)
}

// Upserts of an object's state, ordered (the state moves only to a later
// event's) or not (a defect). The syntax is SQLite's and PostgreSQL's
// alike; only the placeholders differ.
const (
	upsertObject = `INSERT INTO webhook_objects (object, status, created) VALUES (?1, ?2, ?3)
ON CONFLICT (object) DO UPDATE SET status = excluded.status, created = excluded.created`
	upsertObjectOrdered = upsertObject + ` WHERE excluded.created > webhook_objects.created`
)

// objectUpsert is the upsert st asks for, with PostgreSQL's placeholders
// when pg.
func objectUpsert(st *ObjectState, pg bool) string {
	q := upsertObjectOrdered
	if st.LastWriteWins {
		q = upsertObject
	}
	if pg {
		q = strings.NewReplacer("?1", "$1", "?2", "$2", "?3", "$3").Replace(q)
	}
	return q
}
