package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// A helper holds a lease on its project while it lives: a file named after
// the project in LeaseDir, locked by the operating system. A helper killed
// before it tore its project down (SIGKILL, the OOM killer) leaves the file
// behind unlocked, since the kernel drops a dead process's locks; the next
// helper to start reaps that project. Testcontainers' reaper (Ryuk) does
// the same for its own containers, but its image cannot be pulled where no
// registry is reachable, so the helper runs without it.

// leaseExt ends every lease file's name.
const leaseExt = ".lease"

// acquire waits up to leaseWait for a lease someone else holds, trying
// every leaseRetry; tests shorten it.
var (
	leaseWait  = 30 * time.Second
	leaseRetry = 100 * time.Millisecond
)

// LeaseDir is where helpers keep their leases, shared by every helper of
// one user: RESILCHECK_COMPOSE_LEASES when set (a host directory mounted
// there lets containerised helpers reap each other's projects), else
// resilcheck-compose in XDG_RUNTIME_DIR, else resilcheck-compose-UID in
// the temporary directory.
func LeaseDir() string {
	if d := os.Getenv("RESILCHECK_COMPOSE_LEASES"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "resilcheck-compose")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("resilcheck-compose-%d", os.Getuid()))
}

// ErrLeaseDirNotPrivate means the lease directory is not the user's own:
// another user could plant a lease there and have the reaper remove a
// project of their choosing with this user's Docker access.
var ErrLeaseDirNotPrivate = errors.New("engine: the lease directory is not private")

// privateDir creates dir (mode 0700) when it is missing and checks that it
// is a directory, not a link to one, owned by this user, that no one else
// may write to.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("engine: lease: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("engine: lease: %w", err)
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 || !ownedByMe(fi) {
		return fmt.Errorf("%w: %s is %s; want a directory of uid %d that only its owner may write to (e.g. mode 0700)", ErrLeaseDirNotPrivate, dir, fi.Mode(), os.Getuid())
	}
	return nil
}

// lease is a held lease; release gives it up.
type lease struct {
	path string
	f    *os.File
}

// acquire takes the lease on project in dir, creating dir when needed; a
// dir that is not private is an error wrapping ErrLeaseDirNotPrivate.
func acquire(dir, project string) (*lease, error) {
	if err := privateDir(dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, project+leaseExt)
	// A reaper may remove the file between our open and our lock; a lock on
	// an unlinked file guards nothing, so take it again on the new file.
	// Tries a tenth of a second apart for leaseWait: another helper's
	// reaper holds an orphan's lease while it removes its containers.
	for range int(leaseWait / leaseRetry) {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|noFollow, 0o600)
		if err != nil {
			return nil, fmt.Errorf("engine: lease: %w", err)
		}
		held, err := tryLock(f)
		if err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("engine: lease: %w", err)
		}
		if !held {
			// A starting helper's reaper may hold it for a moment, or a
			// live helper for good: wait a little, then give up.
			_ = f.Close()
			time.Sleep(leaseRetry)
			continue
		}
		if same(f, path) {
			return &lease{path: path, f: f}, nil
		}
		_ = f.Close()
	}
	return nil, fmt.Errorf("engine: lease %s: another helper holds project %s", path, project)
}

// same reports whether f is still the file at path.
func same(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// release removes the lease file, then unlocks it, so no reaper ever finds
// the project of a helper that tore it down. A nil lease releases nothing.
func (l *lease) release() {
	if l == nil {
		return
	}
	_ = os.Remove(l.path)
	_ = l.f.Close()
}

// ReapOrphans tears down every project whose lease in dir no helper holds:
// its containers (with their anonymous volumes), networks and volumes, found
// by compose's project label. It returns the projects reaped; a project it
// could not remove keeps its lease file for the next helper to try. It
// reaps nothing from a dir that is not private (ErrLeaseDirNotPrivate).
func ReapOrphans(ctx context.Context, dir string) ([]string, error) {
	if !canLock {
		return nil, nil
	}
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err := privateDir(dir); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("engine: orphans: %w", err)
	}
	var reaped []string
	var errs []error
	var docker *testcontainers.DockerClient
	for _, e := range entries {
		project, ok := strings.CutSuffix(e.Name(), leaseExt)
		if !ok || e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		f, err := os.OpenFile(path, os.O_RDWR|noFollow, 0)
		if err != nil {
			continue // released meanwhile, or not a file
		}
		if held, err := tryLock(f); err != nil || !held || !same(f, path) {
			_ = f.Close()
			continue // its helper lives, or a new one took it
		}
		if docker == nil {
			noReaper()
			if docker, err = testcontainers.NewDockerClientWithOpts(ctx); err != nil {
				_ = f.Close()
				return reaped, fmt.Errorf("engine: orphans: docker client: %w", err)
			}
			defer docker.Close()
		}
		if err := removeProject(ctx, docker.Client, project); err != nil {
			errs = append(errs, fmt.Errorf("engine: reaping project %s: %w", project, err))
		} else {
			_ = os.Remove(path)
			reaped = append(reaped, project)
		}
		_ = f.Close()
	}
	return reaped, errors.Join(errs...)
}

// removeProject removes what compose made for project, as `docker compose
// down --volumes` would, without the compose files (they may be gone).
func removeProject(ctx context.Context, docker *client.Client, project string) error {
	filter := make(client.Filters).Add("label", projectLabel+"="+project)
	var errs []error
	cs, err := docker.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: filter})
	if err != nil {
		return fmt.Errorf("listing containers: %w", err)
	}
	for _, c := range cs.Items {
		if _, err := docker.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err != nil {
			errs = append(errs, err)
		}
	}
	ns, err := docker.NetworkList(ctx, client.NetworkListOptions{Filters: filter})
	if err != nil {
		errs = append(errs, fmt.Errorf("listing networks: %w", err))
	}
	for _, n := range ns.Items {
		if _, err := docker.NetworkRemove(ctx, n.ID, client.NetworkRemoveOptions{}); err != nil {
			errs = append(errs, err)
		}
	}
	vs, err := docker.VolumeList(ctx, client.VolumeListOptions{Filters: filter})
	if err != nil {
		errs = append(errs, fmt.Errorf("listing volumes: %w", err))
	}
	for _, v := range vs.Items {
		if _, err := docker.VolumeRemove(ctx, v.Name, client.VolumeRemoveOptions{Force: true}); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
