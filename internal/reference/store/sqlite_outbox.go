package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// sqliteOutboxSchema holds the events the relay has yet to publish.
const sqliteOutboxSchema = `
CREATE TABLE IF NOT EXISTS outbox (
	seq          INTEGER PRIMARY KEY AUTOINCREMENT,
	id           TEXT    NOT NULL UNIQUE,
	payload      BLOB    NOT NULL,
	created_at   INTEGER NOT NULL,
	published_at INTEGER
);
CREATE INDEX IF NOT EXISTS outbox_unpublished ON outbox (published_at, seq);`

// insertOutbox adds p's event within tx, through the prepared
// sqliteInsertOutbox; the same payment written again adds nothing.
func (s *sqliteStore) insertOutbox(ctx context.Context, tx *sql.Tx, p *Payment) error {
	ev := paymentEvent(p)
	if ev == nil {
		return nil
	}
	_, err := tx.StmtContext(ctx, s.stmt.insertOutbox).ExecContext(ctx, ev.ID, ev.Payload, toMicros(ev.CreatedAt))
	return err
}

const sqliteInsertOutbox = `INSERT INTO outbox (id, payload, created_at) VALUES (?1, ?2, ?3) ON CONFLICT (id) DO NOTHING`

func (s *sqliteStore) Unpublished(ctx context.Context, limit int) ([]OutboxEvent, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, payload, created_at FROM outbox WHERE published_at IS NULL ORDER BY seq LIMIT ?1`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: sqlite outbox: %w", err)
	}
	defer rows.Close()
	var out []OutboxEvent
	for rows.Next() {
		var ev OutboxEvent
		var created int64
		if err := rows.Scan(&ev.ID, &ev.Payload, &created); err != nil {
			return nil, fmt.Errorf("store: sqlite outbox: %w", err)
		}
		ev.CreatedAt = fromMicros(created)
		out = append(out, ev)
	}
	return out, rows.Err()
}

func (s *sqliteStore) MarkPublished(ctx context.Context, ids ...string) error {
	for len(ids) > 0 {
		n := min(len(ids), 500) // SQLite's default limit is 32766 variables
		args := []any{toMicros(time.Now())}
		for _, id := range ids[:n] {
			args = append(args, id)
		}
		q := `UPDATE outbox SET published_at = ? WHERE id IN (?` + strings.Repeat(",?", n-1) + `)`
		if _, err := s.db.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("store: sqlite outbox mark: %w", err)
		}
		ids = ids[n:]
	}
	return nil
}
