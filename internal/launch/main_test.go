package launch

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childEnv makes the test binary act as a tiny target process instead of
// running tests; its value picks the behaviour (see child).
const childEnv = "RESILCHECK_LAUNCH_TEST_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(child(mode))
	}
	os.Exit(m.Run())
}

// child runs one target behaviour. Args: the port to listen on. It writes
// its pid to $CHILD_DIR/NAME.pid so tests can check it is gone after Stop.
func child(mode string) int {
	dir := os.Getenv("CHILD_DIR")
	writePID := func(name string) {
		_ = os.WriteFile(filepath.Join(dir, name+".pid"), []byte(strconv.Itoa(os.Getpid())), 0o644)
	}
	switch mode {
	case "sleep":
		writePID("grandchild")
		select {}
	case "exit":
		fmt.Fprintln(os.Stderr, "boom: no config at /etc/payments.toml")
		return 3
	case "spawn":
		gc := exec.Command(os.Args[0])
		gc.Env = append(os.Environ(), childEnv+"=sleep")
		if err := gc.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	case "stubborn":
		signal.Ignore(syscall.SIGTERM)
	case "panic":
		// A Go service dying at startup with every goroutine's stack, as
		// GOTRACEBACK=all prints it: far more than the last lines kept.
		fmt.Println("payments: starting")
		debug.SetTraceback("all")
		for range 30 {
			go func() { select {} }()
		}
		time.Sleep(10 * time.Millisecond)
		panic("boom: ledger unreachable")
	}
	writePID("child")
	health := http.StatusOK
	if mode == "unhealthy" {
		health = http.StatusServiceUnavailable
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(health) })
	mux.HandleFunc("/dep", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, os.Getenv("DEP_URL")) })
	mux.HandleFunc("/args", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, strings.Join(os.Args[1:], " ")) })
	l, err := net.Listen("tcp", "127.0.0.1:"+os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("child listening on", l.Addr())
	_ = http.Serve(l, mux)
	return 0
}
