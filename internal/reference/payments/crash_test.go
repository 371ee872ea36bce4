//go:build linux

package payments_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
	"github.com/resilcheck/resilcheck/internal/reference/payments"
	"github.com/resilcheck/resilcheck/internal/reference/processor"
	"github.com/resilcheck/resilcheck/internal/reference/store"
)

// The crash test re-executes this test binary as the service process.
const (
	envChild     = "PAYMENTS_CRASH_CHILD"
	envStore     = "PAYMENTS_CRASH_STORE"
	envProcessor = "PAYMENTS_CRASH_PROCESSOR"
	envSeed      = "PAYMENTS_CRASH_SEED"
	envAddr      = "PAYMENTS_CRASH_ADDR"
	envDefects   = "PAYMENTS_CRASH_DEFECTS" // comma-separated; for checking that the test can fail
	envCrashSeed = "RESILCHECK_CRASH_SEED"  // reproduce a run
	crashLease   = 500 * time.Millisecond
	crashBudget  = 300 * time.Millisecond
)

// runChild serves the payments service until killed.
func runChild() {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "crash child:", err)
		os.Exit(3)
	}
	st, err := store.Open(context.Background(), os.Getenv(envStore))
	if err != nil {
		fail(err)
	}
	seed, _ := strconv.ParseUint(os.Getenv(envSeed), 10, 64)
	defects, err := defect.Parse(os.Getenv(envDefects))
	if err != nil {
		fail(err)
	}
	srv, err := payments.New(payments.WithStore(st), payments.WithProcessorURL(os.Getenv(envProcessor)),
		payments.WithSeed(seed), payments.WithLease(crashLease), payments.WithDefects(defects))
	if err != nil {
		fail(err)
	}
	ln, err := net.Listen("tcp", os.Getenv(envAddr))
	if err != nil {
		fail(err)
	}
	fmt.Println("LISTENING", ln.Addr().String())
	fail(http.Serve(ln, srv))
}

// child is one incarnation of the service process.
type child struct {
	cmd  *exec.Cmd
	addr string
}

func startChild(t *testing.T, storeURL, procURL, addr string, seed uint64) (*child, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envChild+"=1", envStore+"="+storeURL, envProcessor+"="+procURL,
		envSeed+"="+strconv.FormatUint(seed, 10), envAddr+"="+addr)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	got, ok := strings.CutPrefix(strings.TrimSpace(line), "LISTENING ")
	if err != nil || !ok {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("child did not start: %q %v", line, err)
	}
	return &child{cmd: cmd, addr: got}, nil
}

func (c *child) kill() {
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	_ = c.cmd.Wait()
}

func TestCrash_SQLite(t *testing.T)   { crashTest(t, "sqlite") }
func TestCrash_Postgres(t *testing.T) { crashTest(t, "postgres") }

// crashTest drives 200 payments, each retried with its own key until it is
// acknowledged, while the service process is SIGKILLed at random points and
// restarted on the same store. Then: no key charged twice, nothing charged
// without a key, one charge per payment, and every acknowledged payment is
// readable and charged.
func crashTest(t *testing.T, kind string) {
	if testing.Short() {
		t.Skip("crash test: -short")
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv(envCrashSeed); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
	}
	t.Logf("crash seed %d (%s=%d replays the same kill intervals and amounts)", seed, envCrashSeed, seed)
	surl := storeURL(t, kind)

	proc, err := processor.New(processor.WithSeed(seed), processor.WithLatency(25*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	psrv := httptest.NewServer(proc)
	defer psrv.Close()

	const payments, workers = 200, 6
	start := time.Now()
	first, err := startChild(t, surl, psrv.URL, "127.0.0.1:0", seed)
	if err != nil {
		t.Fatal(err)
	}
	addr := first.addr
	base := "http://" + addr
	var mu sync.Mutex
	cur := first
	defer func() { mu.Lock(); cur.kill(); mu.Unlock() }()

	// Killer: SIGKILL at random points, restart on the same port and store.
	done := make(chan struct{})
	var kills, busyKills, restartsFailed int
	var inflight atomic.Int64 // driver requests in flight, to see whether kills hit work
	var downtime time.Duration
	killerDone := make(chan struct{})
	go func() {
		defer close(killerDone)
		rng := rand.New(rand.NewPCG(seed, 1))
		for incarnation := uint64(1); ; incarnation++ {
			select {
			case <-done:
				return
			case <-time.After(time.Duration(30+rng.IntN(220)) * time.Millisecond):
			}
			mu.Lock()
			t0 := time.Now()
			if inflight.Load() > 0 {
				busyKills++
			}
			cur.kill()
			kills++
			for {
				c, err := startChild(t, surl, psrv.URL, addr, seed+incarnation*0x9e3779b97f4a7c15)
				if err == nil {
					cur = c
					break
				}
				restartsFailed++
				if restartsFailed > 20 {
					mu.Unlock()
					t.Errorf("cannot restart the service: %v", err)
					return
				}
			}
			downtime += time.Since(t0)
			mu.Unlock()
		}
	}()

	// Driver: each payment keeps its key and retries until acknowledged.
	client := &http.Client{Timeout: time.Second}
	acked := make([]string, payments)
	var attempts, maxAttempts atomic.Int64
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(w)+100))
			for i := range jobs {
				key := fmt.Sprintf("crash-%d-%d", seed, i)
				amount := 100 + i // never 402: every payment must succeed
				body := fmt.Sprintf(`{"amount":%d,"currency":"EUR"}`, amount)
				for n := 1; ; n++ {
					attempts.Add(1)
					if n > 2000 {
						t.Errorf("payment %d: no answer after %d attempts", i, n)
						break
					}
					inflight.Add(1)
					id, ok := postOnce(client, base, key, body)
					inflight.Add(-1)
					if ok {
						acked[i] = id
						if int64(n) > maxAttempts.Load() {
							maxAttempts.Store(int64(n))
						}
						break
					}
					time.Sleep(time.Duration(5+rng.IntN(20)) * time.Millisecond)
				}
			}
		})
	}
	for i := range payments {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(done)
	<-killerDone
	elapsed := time.Since(start)

	// Checks against the live service and the processor's ledger.
	l := proc.Ledger()
	var dupKeys, lost, mismatched int
	for k, n := range l.ByKey {
		if n > 1 {
			dupKeys++
			t.Errorf("processor key %s charged %d times", k, n)
		}
	}
	for i, id := range acked {
		if id == "" {
			continue
		}
		r, err := client.Get(base + "/v1/payments/" + id)
		if err != nil {
			t.Fatalf("GET %s: %v", id, err)
		}
		var p struct{ ID, Status string }
		_ = json.NewDecoder(r.Body).Decode(&p)
		r.Body.Close()
		if r.StatusCode != http.StatusOK || p.ID != id || p.Status != "succeeded" || l.ByKey[id] != 1 {
			lost++
			t.Errorf("payment %d acknowledged as %s: GET %d %+v, ledger %d", i, id, r.StatusCode, p, l.ByKey[id])
		}
		// A replay must name the same payment.
		if again, ok := postOnce(client, base, fmt.Sprintf("crash-%d-%d", seed, i), fmt.Sprintf(`{"amount":%d,"currency":"EUR"}`, 100+i)); !ok || again != id {
			mismatched++
			t.Errorf("payment %d: replay gave %q, acknowledged %s", i, again, id)
		}
	}
	if l.Unkeyed != 0 {
		t.Errorf("%d charges without a key", l.Unkeyed)
	}
	if l.Charges != payments {
		t.Errorf("processor made %d charges for %d payments", l.Charges, payments)
	}
	if kills < 10 {
		t.Errorf("only %d kills; the test did not exercise crashes", kills)
	}
	t.Logf("%s: %d payments, %d kills (%d with requests in flight), %d HTTP attempts (max %d for one payment), %d duplicate keys, %d lost acknowledged, %d replay mismatches, %d charges; %v total, %v restarting",
		kind, payments, kills, busyKills, attempts.Load(), maxAttempts.Load(), dupKeys, lost, mismatched, l.Charges, elapsed.Round(time.Millisecond), downtime.Round(time.Millisecond))
}

// postOnce makes one attempt; ok when the payment is acknowledged (201).
func postOnce(client *http.Client, base, key, body string) (id string, ok bool) {
	req, _ := http.NewRequest(http.MethodPost, base+"/v1/payments", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	req.Header.Set("X-Request-Timeout-Ms", strconv.Itoa(int(crashBudget/time.Millisecond)))
	r, err := client.Do(req)
	if err != nil {
		return "", false
	}
	defer r.Body.Close()
	if r.StatusCode != http.StatusCreated {
		return "", false
	}
	var p struct{ ID string }
	if json.NewDecoder(r.Body).Decode(&p) != nil || p.ID == "" {
		return "", false
	}
	return p.ID, true
}
