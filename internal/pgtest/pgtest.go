// Package pgtest gives tests and benchmarks a real PostgreSQL database.
//
// DSN looks, in order, for $RESILCHECK_PG_DSN, a testcontainers container
// (postgres:16-alpine, when a Docker engine answers) and a throwaway local
// cluster started with initdb/postgres; otherwise the test is skipped, or
// fails when RESILCHECK_REQUIRE_PG=1 or RESILCHECK_REQUIRE_DOCKER=1.
//
// One server is shared by the whole test binary and each DSN call gets a fresh
// database on it. Stop the server when the binary ends with Main:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
// Without Main the server still dies with the test binary (the local
// postmaster gets SIGKILL through the parent-death signal; the testcontainers
// reaper removes a container), but its temporary data directory stays behind
// until the next local cluster starts and sweeps it.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Environment variables DSN reads.
const (
	// EnvDSN names an existing server to use instead of starting one; DSN
	// returns it unchanged, so tests sharing it must keep their data apart.
	EnvDSN = "RESILCHECK_PG_DSN"
	// EnvRequirePG=1 turns "no PostgreSQL available" into a test failure.
	EnvRequirePG = "RESILCHECK_REQUIRE_PG"
	// EnvRequireDocker=1 requires the testcontainers path: a Docker failure
	// fails the test instead of falling back to a local cluster.
	EnvRequireDocker = "RESILCHECK_REQUIRE_DOCKER"
)

// startTimeout bounds starting a server (image pull or initdb + startup).
const startTimeout = 3 * time.Minute

// server is a running PostgreSQL whose adminDSN may CREATE DATABASE.
type server struct {
	kind     string // "testcontainers" or "local"
	adminDSN string
	stop     func()
	restart  func(context.Context) error // nil where the server cannot be restarted
}

var (
	sharedOnce sync.Once
	sharedSrv  *server
	sharedErr  error
	sharedPool *pgxpool.Pool // admin connections for CREATE/DROP DATABASE
	mainUsed   atomic.Bool
	warnOnce   sync.Once
	dbSeq      atomic.Int64
)

// DSN returns the URL of an empty database for t, dropped in t's Cleanup.
// It starts the binary's shared server on first use (about 2 s for a local
// cluster), skips t when no PostgreSQL can be had, and fails t instead when
// RESILCHECK_REQUIRE_PG=1 or RESILCHECK_REQUIRE_DOCKER=1. Safe for
// concurrent use by parallel tests.
func DSN(t testing.TB) string {
	t.Helper()
	if dsn := os.Getenv(EnvDSN); dsn != "" {
		return dsn
	}
	sharedOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		defer cancel()
		sharedSrv, sharedErr = start(ctx, t.Logf)
		if sharedErr == nil {
			sharedPool, sharedErr = pgxpool.New(ctx, sharedSrv.adminDSN)
			if sharedErr != nil {
				sharedSrv.stop()
			}
		}
		if sharedErr == nil {
			t.Logf("pgtest: shared %s server at %s", sharedSrv.kind, sharedSrv.adminDSN)
		}
	})
	if sharedErr != nil {
		if os.Getenv(EnvRequirePG) == "1" || os.Getenv(EnvRequireDocker) == "1" {
			t.Fatalf("pgtest: PostgreSQL required (%s/%s=1) but unavailable: %v", EnvRequirePG, EnvRequireDocker, sharedErr)
		}
		t.Skipf("pgtest: no PostgreSQL available: %v", sharedErr)
	}
	if !mainUsed.Load() {
		warnOnce.Do(func() {
			t.Logf("pgtest: TestMain does not call pgtest.Main; the shared server's data directory outlives this binary")
		})
	}
	dsn, err := createDatabase(t)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return dsn
}

// createDatabase makes a uniquely named database and drops it in Cleanup.
func createDatabase(t testing.TB) (string, error) {
	name := fmt.Sprintf("pgtest_%d_%d", os.Getpid(), dbSeq.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := sharedPool.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		// FORCE ends sessions a test left open (PostgreSQL 13+).
		_, _ = sharedPool.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	})
	u, err := url.Parse(sharedSrv.adminDSN)
	if err != nil {
		return "", fmt.Errorf("parse admin DSN: %w", err)
	}
	u.Path = "/" + name
	return u.String(), nil
}

// Main runs the tests, stops the shared server, and exits with the tests'
// status. Call it from TestMain in every package that uses DSN.
func Main(m *testing.M) {
	mainUsed.Store(true)
	code := m.Run()
	if sharedPool != nil {
		sharedPool.Close()
	}
	if sharedSrv != nil {
		sharedSrv.stop()
	}
	os.Exit(code)
}

// Start brings up a dedicated server for benchmarks and commands outside
// `go test`: $RESILCHECK_PG_DSN (stop does nothing), else testcontainers, else
// a local cluster. The DSN names database "postgres" on a superuser role.
// stop is idempotent and blocks until the server is gone.
func Start(ctx context.Context) (dsn string, stop func(), err error) {
	if dsn := os.Getenv(EnvDSN); dsn != "" {
		return dsn, func() {}, nil
	}
	srv, err := start(ctx, func(string, ...any) {})
	if err != nil {
		return "", nil, err
	}
	return srv.adminDSN, srv.stop, nil
}

// start tries testcontainers, then a local cluster.
func start(ctx context.Context, logf func(string, ...any)) (*server, error) {
	srv, cerr := startContainer(ctx)
	if cerr == nil {
		return srv, nil
	}
	if os.Getenv(EnvRequireDocker) == "1" {
		return nil, fmt.Errorf("testcontainers postgres (required by %s=1): %w", EnvRequireDocker, cerr)
	}
	logf("pgtest: testcontainers unavailable (%v); trying a local cluster", cerr)
	srv, lerr := startLocal(ctx)
	if lerr != nil {
		return nil, errors.Join(fmt.Errorf("testcontainers: %w", cerr), fmt.Errorf("local cluster: %w", lerr))
	}
	return srv, nil
}

// once wraps stop so that Main, Start's caller and error paths may all call it.
func once(f func()) func() {
	var o sync.Once
	return func() { o.Do(f) }
}

// Restartable starts a server of t's own (a local cluster: the shared one
// must not go away under other tests), durable across a crash of the
// server (synchronous_commit on), and returns its DSN and a function
// that crashes it (immediate shutdown) and brings it back on the same data
// and port. It skips, or fails under RESILCHECK_REQUIRE_PG=1, where no
// local PostgreSQL can start; the server stops when t ends.
func Restartable(t testing.TB) (dsn string, restart func(context.Context) error) {
	t.Helper()
	srv, err := startLocalCluster(context.Background(), true)
	if err != nil {
		if os.Getenv(EnvRequirePG) == "1" {
			t.Fatalf("pgtest: a local PostgreSQL to restart (required by %s=1): %v", EnvRequirePG, err)
		}
		t.Skipf("SKIP: no local PostgreSQL to restart: %v", err)
	}
	t.Cleanup(srv.stop)
	return srv.adminDSN, srv.restart
}
