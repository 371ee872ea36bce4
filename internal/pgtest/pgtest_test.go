package pgtest

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

func TestMain(m *testing.M) { Main(m) }

func TestDSN(t *testing.T) {
	ctx := context.Background()
	a, b := DSN(t), DSN(t)
	if a == b && os.Getenv(EnvDSN) == "" {
		t.Fatalf("two DSN calls returned the same database %q", a)
	}
	for _, dsn := range []string{a, b} {
		pool, err := pgxpool.New(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		var v string
		if err := pool.QueryRow(ctx, "select version()").Scan(&v); err != nil {
			t.Fatal(err)
		}
		// A fresh database has no tables of its own: creating one must work.
		if _, err := pool.Exec(ctx, `create table runs(id bigserial primary key)`); err != nil {
			t.Fatal(err)
		}
		pool.Close()
		t.Log(v)
	}
}

func TestStart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a second server")
	}
	ctx := context.Background()
	dsn, stop, err := Start(ctx)
	if err != nil {
		t.Skipf("no PostgreSQL: %v", err)
	}
	defer stop()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := pool.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	stop()
	stop() // idempotent
}
