package engine

import (
	"errors"
	"fmt"
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

// TestLease_notPrivate: a lease directory another user could write to, or
// a link in its place, is neither leased in nor reaped from, so nobody can
// plant a lease that makes the reaper remove a project of their choosing.
func TestLease_notPrivate(t *testing.T) {
	if !canLock {
		t.Skip("no flock(2) here")
	}
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock") // asking it would fail
	open := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil { // as another user's planted directory would be
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(open, "victim"+leaseExt), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(t.TempDir(), link); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{open, link} {
		if _, err := acquire(dir, "demo"); !errors.Is(err, ErrLeaseDirNotPrivate) {
			t.Errorf("acquire in %s: %v; want ErrLeaseDirNotPrivate", dir, err)
		}
		if reaped, err := ReapOrphans(t.Context(), dir); !errors.Is(err, ErrLeaseDirNotPrivate) || len(reaped) > 0 {
			t.Errorf("ReapOrphans(%s) = %v, %v; want nothing reaped and ErrLeaseDirNotPrivate", dir, reaped, err)
		}
	}
}

// TestLeaseDir_choice: the override wins, then the user's runtime
// directory, then the temporary directory.
func TestLeaseDir_choice(t *testing.T) {
	t.Setenv("RESILCHECK_COMPOSE_LEASES", "/leases")
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/7")
	if got := LeaseDir(); got != "/leases" {
		t.Errorf("LeaseDir = %s with the override", got)
	}
	t.Setenv("RESILCHECK_COMPOSE_LEASES", "")
	if got := LeaseDir(); got != "/run/user/7/resilcheck-compose" {
		t.Errorf("LeaseDir = %s with XDG_RUNTIME_DIR", got)
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	if got, want := LeaseDir(), filepath.Join(os.TempDir(), fmt.Sprintf("resilcheck-compose-%d", os.Getuid())); got != want {
		t.Errorf("LeaseDir = %s; want %s", got, want)
	}
}

// TestLease_otherOwner: a directory owned by another user is not private
// whatever its mode (the test runs as root to hand it over).
func TestLease_otherOwner(t *testing.T) {
	if !canLock || os.Getuid() != 0 {
		t.Skip("needs flock(2) and root to chown")
	}
	dir := filepath.Join(t.TempDir(), "theirs")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	if _, err := acquire(dir, "demo"); !errors.Is(err, ErrLeaseDirNotPrivate) {
		t.Errorf("acquire in another user's directory: %v; want ErrLeaseDirNotPrivate", err)
	}
}
