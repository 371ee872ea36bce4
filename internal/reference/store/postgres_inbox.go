package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// postgresInboxSchema mirrors sqliteInboxSchema with native types.
var postgresInboxSchema = []string{`
CREATE TABLE IF NOT EXISTS webhook_inbox (
	id          text        PRIMARY KEY,
	received_at timestamptz NOT NULL
)`, `
CREATE TABLE IF NOT EXISTS webhook_effects (
	seq         bigserial   PRIMARY KEY,
	event_id    text        NOT NULL,
	type        text        NOT NULL,
	amount      bigint      NOT NULL,
	received_at timestamptz NOT NULL
)`, `CREATE INDEX IF NOT EXISTS webhook_effects_event ON webhook_effects (event_id)`, `
CREATE TABLE IF NOT EXISTS webhook_objects (
	object  text   PRIMARY KEY,
	status  text   NOT NULL,
	created bigint NOT NULL
)`}

// Receive inserts the inbox row and the effect in one transaction; a
// concurrent insert of the same id waits on the primary key and then
// conflicts, so one delivery records the effect.
func (s *postgresStore) Receive(ctx context.Context, ev Event, dedupe bool) (bool, error) {
	fresh := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if dedupe {
			tag, err := tx.Exec(ctx, `INSERT INTO webhook_inbox (id, received_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`, ev.ID, pgTime(ev.ReceivedAt))
			if err != nil || tag.RowsAffected() == 0 {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO webhook_effects (event_id, type, amount, received_at) VALUES ($1, $2, $3, $4)`,
			ev.ID, ev.Type, ev.Amount, pgTime(ev.ReceivedAt)); err != nil {
			return err
		}
		if st := ev.State; st != nil {
			if _, err := tx.Exec(ctx, objectUpsert(st, true), st.Object, st.Status, st.Created); err != nil {
				return err
			}
		}
		fresh = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("store: postgres receive: %w", err)
	}
	return fresh, nil
}

func (s *postgresStore) EventEffects(ctx context.Context, id string) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT COUNT(*) FROM webhook_effects WHERE event_id = $1`, id).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: postgres event effects: %w", err)
	}
	return n, nil
}

func (s *postgresStore) Object(ctx context.Context, id string) (ObjectState, bool, error) {
	st := ObjectState{Object: id}
	err := s.pool.QueryRow(ctx, `SELECT status, created FROM webhook_objects WHERE object = $1`, id).Scan(&st.Status, &st.Created)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return ObjectState{}, false, nil
	case err != nil:
		return ObjectState{}, false, fmt.Errorf("store: postgres object: %w", err)
	}
	return st, true, nil
}
