package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// dirPrefix names local cluster directories; the owning test binary's pid
// follows it, so a later start can sweep directories whose owner died.
const dirPrefix = "resilcheck-pgtest-"

// startLocal initialises a throwaway cluster in a temp dir and runs the
// postmaster directly (not through pg_ctl) as a child with a parent-death
// signal, so it cannot outlive the test binary even if that is killed.
func startLocal(ctx context.Context) (*server, error) { return startLocalCluster(ctx, false) }

// startLocalCluster is startLocal; durable keeps synchronous_commit on, so
// a commit the server acknowledged survives a crash of the server (fsync
// stays off: the machine does not crash, only the postmaster).
func startLocalCluster(ctx context.Context, durable bool) (*server, error) {
	initdb, err := pgBin("initdb")
	if err != nil {
		return nil, err
	}
	postgres, err := pgBin("postgres")
	if err != nil {
		return nil, err
	}
	sweepStale()
	dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-*", dirPrefix, os.Getpid()))
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(dir)
		}
	}()
	cred, err := dropRoot(dir)
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	initCmd := exec.CommandContext(ctx, initdb, "-D", data, "-U", "resilcheck", "--auth=trust",
		"-E", "UTF8", "--no-sync", "--no-instructions")
	initCmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
	if out, err := initCmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	pm, err := runPostmaster(postgres, dir, data, port, cred, durable)
	if err != nil {
		return nil, err
	}
	dsn := fmt.Sprintf("postgres://resilcheck@127.0.0.1:%d/postgres?sslmode=disable", port)
	var mu sync.Mutex // guards pm across restart and stop
	stop := once(func() {
		mu.Lock()
		defer mu.Unlock()
		pm.crash()
		os.RemoveAll(dir)
	})
	if err := waitReady(ctx, dsn, pm.p); err != nil {
		stop()
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		return nil, fmt.Errorf("postgres did not become ready: %w\n%s", err, tail(log, 2000))
	}
	// restart crashes the postmaster (immediate shutdown: no checkpoint, as
	// a power loss) and starts it again on the same data and port.
	restart := func(ctx context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		pm.crash()
		next, err := runPostmaster(postgres, dir, data, port, cred, durable)
		if err != nil {
			return err
		}
		pm = next
		return waitReady(ctx, dsn, pm.p)
	}
	ok = true
	return &server{kind: "local", adminDSN: dsn, stop: stop, restart: restart}, nil
}

// postmaster is a running postgres.
type postmaster struct {
	cmd *exec.Cmd
	p   *pinnedProc
}

// runPostmaster starts postgres on data, logging to dir/log; see
// startLocalCluster for durable.
func runPostmaster(postgres, dir, data string, port int, cred *syscall.Credential, durable bool) (*postmaster, error) {
	logFile, err := os.OpenFile(filepath.Join(dir, "log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child holds its own descriptor
	// Speed over durability for tests, but for what a restart test needs:
	// with synchronous_commit off, a postmaster crash loses commits the
	// server had already acknowledged.
	commit := "off"
	if durable {
		commit = "on"
	}
	cmd := exec.Command(postgres, "-D", data,
		"-c", "listen_addresses=127.0.0.1", "-p", strconv.Itoa(port), "-k", dir,
		"-c", "fsync=off", "-c", "synchronous_commit="+commit, "-c", "full_page_writes=off",
		"-c", "max_connections=300", "-c", "shared_buffers=32MB")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// SIGKILL on parent death: a killed test binary takes its postmaster
	// along; the backends then exit on noticing the postmaster is gone.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL, Setpgid: true}
	p, err := startPinned(cmd)
	if err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	return &postmaster{cmd: cmd, p: p}, nil
}

// crash stops the postmaster at once and waits until it is gone.
func (pm *postmaster) crash() {
	// SIGQUIT is PostgreSQL's immediate shutdown (pg_ctl -m immediate).
	_ = pm.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-pm.p.exited:
	case <-time.After(10 * time.Second):
		_ = pm.cmd.Process.Kill()
		<-pm.p.exited
	}
}

// pinnedProc is a child started from a locked OS thread.
type pinnedProc struct {
	exited chan struct{}
}

// startPinned starts cmd from a goroutine locked to its OS thread and keeps
// that thread alive until the child exits: Linux sends the parent-death
// signal when the forking thread (not process) exits, and the Go runtime may
// retire an idle thread.
func startPinned(cmd *exec.Cmd) (*pinnedProc, error) {
	p := &pinnedProc{exited: make(chan struct{})}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			errc <- err
			return
		}
		errc <- nil
		_ = cmd.Wait()
		close(p.exited)
	}()
	if err := <-errc; err != nil {
		return nil, err
	}
	return p, nil
}

// waitReady polls until the server accepts a connection, the child dies, or
// ctx ends.
func waitReady(ctx context.Context, dsn string, p *pinnedProc) error {
	var last error
	for {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		conn, err := pgx.Connect(cctx, dsn)
		cancel()
		if err == nil {
			return conn.Close(ctx)
		}
		last = err
		select {
		case <-p.exited:
			return errors.New("postgres exited during startup")
		case <-ctx.Done():
			return fmt.Errorf("%w (last error: %v)", ctx.Err(), last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// dropRoot returns the credential of the "postgres" user when running as root
// (initdb and postgres refuse to run as root) and hands dir to that user.
func dropRoot(dir string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root and no postgres user to run initdb as: %w", err)
	}
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return nil, err
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		return nil, err
	}
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// pgBin finds a PostgreSQL server binary in PATH or Debian's versioned
// directories (the newest version wins).
func pgBin(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/" + name)
	if len(m) > 0 {
		return m[len(m)-1], nil
	}
	return "", fmt.Errorf("%s not found in PATH or /usr/lib/postgresql/*/bin", name)
}

// freePort asks the kernel for a free loopback port. Another process could
// take it before postgres binds; startup then fails with a clear log.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// sweepStale removes cluster directories left by test binaries that died
// without Main. It only deletes a directory whose owning pid and postmaster
// pid are both gone, and never signals any process.
func sweepStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, d := range dirs {
		rest := strings.TrimPrefix(filepath.Base(d), dirPrefix)
		pidStr, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidStr)
		if err != nil || pid == os.Getpid() || alive(pid) {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(d, "data", "postmaster.pid")); err == nil {
			first, _, _ := strings.Cut(string(b), "\n")
			if pm, err := strconv.Atoi(strings.TrimSpace(first)); err == nil && alive(pm) {
				continue
			}
		}
		os.RemoveAll(d)
	}
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
