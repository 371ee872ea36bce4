package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// postgresSchema mirrors sqliteSchema with native types; expires_at is NULL
// when a record never expires.
var postgresSchema = []string{`
CREATE TABLE IF NOT EXISTS idempotency_records (
	tenant      text        NOT NULL,
	key         text        NOT NULL,
	fingerprint text        NOT NULL,
	payment_id  text        NOT NULL,
	state       text        NOT NULL,
	owner       text        NOT NULL,
	lease_until timestamptz NOT NULL,
	status      integer     NOT NULL,
	body        bytea       NOT NULL,
	created_at  timestamptz NOT NULL,
	expires_at  timestamptz,
	PRIMARY KEY (tenant, key)
)`, `
CREATE TABLE IF NOT EXISTS payments (
	id         text        PRIMARY KEY,
	tenant     text        NOT NULL,
	key        text        NOT NULL,
	amount     bigint      NOT NULL,
	currency   text        NOT NULL,
	charge_id  text        NOT NULL,
	status     text        NOT NULL,
	created_at timestamptz NOT NULL
)`}

// schemaLockID keys the advisory lock that serialises schema creation:
// concurrent CREATE TABLE IF NOT EXISTS can otherwise fail on pg_type's
// unique index when several processes open the same database at once.
const schemaLockID int64 = 0x7265_7369_6c63_6b00 // "resilck\0"

type postgresStore struct {
	pool *pgxpool.Pool
}

var _ Store = (*postgresStore)(nil)

func openPostgres(ctx context.Context, url string) (*postgresStore, error) {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("store: postgres open %q: %w", redact(url), err)
	}
	if err := createPostgresSchema(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: postgres open %q: %w", redact(url), err)
	}
	return &postgresStore{pool: pool}, nil
}

func createPostgresSchema(ctx context.Context, pool *pgxpool.Pool) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, schemaLockID); err != nil {
			return fmt.Errorf("schema lock: %w", err)
		}
		for _, stmt := range slices.Concat(postgresSchema, postgresInboxSchema, postgresOutboxSchema) {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return fmt.Errorf("create schema: %w", err)
			}
		}
		return nil
	})
}

// Claim is one INSERT … ON CONFLICT DO UPDATE … WHERE … RETURNING statement.
// PostgreSQL locks the conflicting row and re-evaluates the WHERE clause
// against its latest committed version, so exactly one concurrent caller
// inserts or takes over; RETURNING yields a row only for that caller.
func (s *postgresStore) Claim(ctx context.Context, rec Record, now time.Time) (Record, bool, error) {
	const q = `
INSERT INTO idempotency_records AS r
	(tenant, key, fingerprint, payment_id, state, owner, lease_until, status, body, created_at, expires_at)
VALUES ($1, $2, $3, $4, 'in_progress', $5, $6, 0, ''::bytea, $7, $8)
ON CONFLICT (tenant, key) DO UPDATE SET
	fingerprint = CASE WHEN r.expires_at <= $9 THEN excluded.fingerprint ELSE r.fingerprint END,
	payment_id  = CASE WHEN r.expires_at <= $9 THEN excluded.payment_id ELSE r.payment_id END,
	status      = CASE WHEN r.expires_at <= $9 THEN 0 ELSE r.status END,
	body        = CASE WHEN r.expires_at <= $9 THEN ''::bytea ELSE r.body END,
	created_at  = CASE WHEN r.expires_at <= $9 THEN excluded.created_at ELSE r.created_at END,
	expires_at  = CASE WHEN r.expires_at <= $9 THEN excluded.expires_at ELSE r.expires_at END,
	state       = 'in_progress',
	owner       = excluded.owner,
	lease_until = excluded.lease_until
WHERE r.expires_at <= $9
   OR (r.state = 'in_progress' AND r.lease_until <= $9 AND r.fingerprint = excluded.fingerprint)
RETURNING ` + recordColumns
	stored := Record{Tenant: rec.Tenant, Key: rec.Key}
	err := scanRecordPostgres(s.pool.QueryRow(ctx, q,
		rec.Tenant, rec.Key, rec.Fingerprint, rec.PaymentID, rec.Owner,
		pgTime(rec.LeaseUntil), pgTime(rec.CreatedAt), pgNullTime(rec.ExpiresAt), pgTime(now),
	), &stored)
	if err == nil {
		return stored, true, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return Record{}, false, fmt.Errorf("store: postgres claim: %w", err)
	}
	stored, err = s.Lookup(ctx, rec.Tenant, rec.Key)
	if err != nil {
		return Record{}, false, fmt.Errorf("store: postgres claim: read holder: %w", err)
	}
	return stored, false, nil
}

// Complete updates the record and inserts the payment in one transaction.
func (s *postgresStore) Complete(ctx context.Context, tenant, key, owner string, state State, status int, body []byte, p *Payment) error {
	if err := checkFinal(state); err != nil {
		return err
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `
UPDATE idempotency_records SET state = $1, status = $2, body = $3
WHERE tenant = $4 AND key = $5 AND owner = $6 AND state = 'in_progress'`,
			string(state), status, nonNil(body), tenant, key, owner)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return ErrNotOwner
		}
		if p != nil {
			return insertPaymentPostgres(ctx, tx, p)
		}
		return nil
	})
	if errors.Is(err, ErrNotOwner) {
		return ErrNotOwner
	}
	if err != nil {
		return fmt.Errorf("store: postgres complete: %w", err)
	}
	return nil
}

// Release sets the lease to the zero time, which has passed at any now.
func (s *postgresStore) Release(ctx context.Context, tenant, key, owner string) error {
	tag, err := s.pool.Exec(ctx, `
UPDATE idempotency_records SET lease_until = $1
WHERE tenant = $2 AND key = $3 AND owner = $4 AND state = 'in_progress'`,
		pgTime(time.Time{}), tenant, key, owner)
	if err != nil {
		return fmt.Errorf("store: postgres release: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return ErrNotOwner
	}
	return nil
}

func (s *postgresStore) Lookup(ctx context.Context, tenant, key string) (Record, error) {
	rec := Record{Tenant: tenant, Key: key}
	err := scanRecordPostgres(s.pool.QueryRow(ctx,
		`SELECT `+recordColumns+` FROM idempotency_records WHERE tenant = $1 AND key = $2`,
		tenant, key), &rec)
	if errors.Is(err, pgx.ErrNoRows) {
		return Record{}, ErrNotFound
	}
	if err != nil {
		return Record{}, fmt.Errorf("store: postgres lookup: %w", err)
	}
	return rec, nil
}

// Put is a plain upsert: no lease, owner or expiry check, by design.
func (s *postgresStore) Put(ctx context.Context, rec Record, p *Payment) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `
INSERT INTO idempotency_records
	(tenant, key, fingerprint, payment_id, state, owner, lease_until, status, body, created_at, expires_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
ON CONFLICT (tenant, key) DO UPDATE SET
	fingerprint = excluded.fingerprint, payment_id = excluded.payment_id, state = excluded.state,
	owner = excluded.owner, lease_until = excluded.lease_until, status = excluded.status,
	body = excluded.body, created_at = excluded.created_at, expires_at = excluded.expires_at`,
			rec.Tenant, rec.Key, rec.Fingerprint, rec.PaymentID, string(rec.State), rec.Owner,
			pgTime(rec.LeaseUntil), rec.Status, nonNil(rec.Body), pgTime(rec.CreatedAt), pgNullTime(rec.ExpiresAt))
		if err != nil {
			return err
		}
		if p != nil {
			return insertPaymentPostgres(ctx, tx, p)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: postgres put: %w", err)
	}
	return nil
}

func (s *postgresStore) Payment(ctx context.Context, tenant, id string) (Payment, error) {
	var (
		p       Payment
		created time.Time
	)
	err := s.pool.QueryRow(ctx, `
SELECT id, tenant, key, amount, currency, charge_id, status, created_at
FROM payments WHERE id = $1 AND tenant = $2`, id, tenant).
		Scan(&p.ID, &p.Tenant, &p.Key, &p.Amount, &p.Currency, &p.ChargeID, &p.Status, &created)
	if errors.Is(err, pgx.ErrNoRows) {
		return Payment{}, ErrNotFound
	}
	if err != nil {
		return Payment{}, fmt.Errorf("store: postgres payment: %w", err)
	}
	p.CreatedAt = created.UTC()
	return p, nil
}

func (s *postgresStore) Close() error {
	s.pool.Close()
	return nil
}

// insertPaymentPostgres upserts p, as insertPaymentSQLite.
func insertPaymentPostgres(ctx context.Context, tx pgx.Tx, p *Payment) error {
	_, err := tx.Exec(ctx, `
INSERT INTO payments (id, tenant, key, amount, currency, charge_id, status, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
ON CONFLICT (id) DO UPDATE SET
	tenant = excluded.tenant, key = excluded.key, amount = excluded.amount, currency = excluded.currency,
	charge_id = excluded.charge_id, status = excluded.status, created_at = excluded.created_at`,
		p.ID, p.Tenant, p.Key, p.Amount, p.Currency, p.ChargeID, p.Status, pgTime(p.CreatedAt))
	if err != nil {
		return err
	}
	return insertOutboxPostgres(ctx, tx, p)
}

func scanRecordPostgres(row pgx.Row, rec *Record) error {
	var (
		state          string
		lease, created time.Time
		expires        *time.Time
	)
	if err := row.Scan(&rec.Fingerprint, &rec.PaymentID, &state, &rec.Owner, &lease,
		&rec.Status, &rec.Body, &created, &expires); err != nil {
		return err
	}
	rec.State = State(state)
	rec.LeaseUntil = lease.UTC()
	rec.CreatedAt = created.UTC()
	rec.ExpiresAt = time.Time{}
	if expires != nil {
		rec.ExpiresAt = expires.UTC()
	}
	if len(rec.Body) == 0 {
		rec.Body = nil
	}
	return nil
}

// pgTime truncates to PostgreSQL's microsecond precision the way toMicros
// does for SQLite, so both backends return identical times.
func pgTime(t time.Time) time.Time { return fromMicros(toMicros(t)) }

// pgNullTime stores the zero ExpiresAt as NULL: a record that never expires.
func pgNullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return pgTime(t)
}
