package engine

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestLease_acquire: a held lease cannot be taken twice; released, it
// leaves no file, and can be taken again.
func TestLease_acquire(t *testing.T) {
	if !canLock {
		t.Skip("no flock(2) here: leases guard nothing")
	}
	defer func(w time.Duration) { leaseWait = w }(leaseWait)
	leaseWait = 300 * time.Millisecond // how long a held lease is waited for
	dir := filepath.Join(t.TempDir(), "leases")
	l, err := acquire(dir, "demo")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := acquire(dir, "demo"); err == nil {
		t.Fatal("a held lease was taken twice")
	}
	other, err := acquire(dir, "other")
	if err != nil {
		t.Fatalf("another project's lease: %v", err)
	}
	other.release()
	l.release()
	if _, err := os.Stat(filepath.Join(dir, "demo"+leaseExt)); !os.IsNotExist(err) {
		t.Errorf("a released lease left its file: %v", err)
	}
	again, err := acquire(dir, "demo")
	if err != nil {
		t.Fatalf("taking a released lease: %v", err)
	}
	again.release()
}

// TestReapOrphans_heldLease: a lease a live helper holds is not reaped, so
// no Docker engine is even asked.
func TestReapOrphans_heldLease(t *testing.T) {
	if !canLock {
		t.Skip("no flock(2) here")
	}
	dir := t.TempDir()
	l, err := acquire(dir, "alive")
	if err != nil {
		t.Fatal(err)
	}
	defer l.release()
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(dir, "no-engine.sock")) // asking it would fail
	reaped, err := ReapOrphans(t.Context(), dir)
	if err != nil || len(reaped) != 0 {
		t.Fatalf("ReapOrphans = %v, %v; want nothing reaped", reaped, err)
	}
	if _, err := os.Stat(l.path); err != nil {
		t.Errorf("the live lease's file: %v", err)
	}
}
