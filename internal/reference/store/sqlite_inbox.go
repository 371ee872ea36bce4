package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// sqliteInboxSchema holds the webhook inbox (one row per event id) and the
// effects events made (one row per recorded effect).
const sqliteInboxSchema = `
CREATE TABLE IF NOT EXISTS webhook_inbox (
	id          TEXT    PRIMARY KEY,
	received_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS webhook_effects (
	seq         INTEGER PRIMARY KEY AUTOINCREMENT,
	event_id    TEXT    NOT NULL,
	type        TEXT    NOT NULL,
	amount      INTEGER NOT NULL,
	received_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS webhook_effects_event ON webhook_effects (event_id);
CREATE TABLE IF NOT EXISTS webhook_objects (
	object  TEXT    PRIMARY KEY,
	status  TEXT    NOT NULL,
	created INTEGER NOT NULL
);`

// Receive runs under SQLite's write lock (BEGIN IMMEDIATE): the inbox
// insert and the effect commit together or not at all.
func (s *sqliteStore) Receive(ctx context.Context, ev Event, dedupe bool) (bool, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("store: sqlite receive: %w", err)
	}
	defer tx.Rollback()
	at := toMicros(ev.ReceivedAt)
	if dedupe {
		res, err := tx.ExecContext(ctx, `INSERT INTO webhook_inbox (id, received_at) VALUES (?1, ?2) ON CONFLICT (id) DO NOTHING`, ev.ID, at)
		if err != nil {
			return false, fmt.Errorf("store: sqlite receive: inbox: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return false, err
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_effects (event_id, type, amount, received_at) VALUES (?1, ?2, ?3, ?4)`,
		ev.ID, ev.Type, ev.Amount, at); err != nil {
		return false, fmt.Errorf("store: sqlite receive: effect: %w", err)
	}
	if st := ev.State; st != nil {
		if _, err := tx.ExecContext(ctx, objectUpsert(st, false), st.Object, st.Status, st.Created); err != nil {
			return false, fmt.Errorf("store: sqlite receive: object: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("store: sqlite receive: commit: %w", err)
	}
	return true, nil
}

func (s *sqliteStore) EventEffects(ctx context.Context, id string) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM webhook_effects WHERE event_id = ?1`, id).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: sqlite event effects: %w", err)
	}
	return n, nil
}

func (s *sqliteStore) Object(ctx context.Context, id string) (ObjectState, bool, error) {
	st := ObjectState{Object: id}
	err := s.db.QueryRowContext(ctx, `SELECT status, created FROM webhook_objects WHERE object = ?1`, id).Scan(&st.Status, &st.Created)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return ObjectState{}, false, nil
	case err != nil:
		return ObjectState{}, false, fmt.Errorf("store: sqlite object: %w", err)
	}
	return st, true, nil
}
