package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// postgresOutboxSchema mirrors sqliteOutboxSchema with native types.
var postgresOutboxSchema = []string{`
CREATE TABLE IF NOT EXISTS outbox (
	seq          bigserial   PRIMARY KEY,
	id           text        NOT NULL UNIQUE,
	payload      bytea       NOT NULL,
	created_at   timestamptz NOT NULL,
	published_at timestamptz
)`, `CREATE INDEX IF NOT EXISTS outbox_unpublished ON outbox (published_at, seq)`}

// insertOutboxPostgres adds p's event within tx, as sqliteStore.insertOutbox.
func insertOutboxPostgres(ctx context.Context, tx pgx.Tx, p *Payment) error {
	ev := paymentEvent(p)
	if ev == nil {
		return nil
	}
	_, err := tx.Exec(ctx, `INSERT INTO outbox (id, payload, created_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING`,
		ev.ID, ev.Payload, pgTime(ev.CreatedAt))
	return err
}

func (s *postgresStore) Unpublished(ctx context.Context, limit int) ([]OutboxEvent, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, payload, created_at FROM outbox WHERE published_at IS NULL ORDER BY seq LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: postgres outbox: %w", err)
	}
	defer rows.Close()
	var out []OutboxEvent
	for rows.Next() {
		var ev OutboxEvent
		if err := rows.Scan(&ev.ID, &ev.Payload, &ev.CreatedAt); err != nil {
			return nil, fmt.Errorf("store: postgres outbox: %w", err)
		}
		out = append(out, ev)
	}
	return out, rows.Err()
}

func (s *postgresStore) MarkPublished(ctx context.Context, ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	if _, err := s.pool.Exec(ctx, `UPDATE outbox SET published_at = $1 WHERE id = ANY($2)`, pgTime(time.Now()), ids); err != nil {
		return fmt.Errorf("store: postgres outbox mark: %w", err)
	}
	return nil
}
