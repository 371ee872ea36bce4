package payments_test

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/internal/pgtest"
	"github.com/resilcheck/resilcheck/internal/reference/payments"
	"github.com/resilcheck/resilcheck/internal/reference/processor"
	"github.com/resilcheck/resilcheck/internal/reference/store"
)

// killLease is the claim lease in the kill-point tests: a crashed request's
// claim blocks its retries (409) until it runs out.
const killLease = 20 * time.Millisecond

// killKeys is how many keys each step is killed at, per store backend.
const killKeys = 180

// crashFirst returns a failpoint that kills the first request of its key
// at step, counting the kills and closing crashed when it fires.
func crashFirst(at payments.Step, kills *atomic.Int64, crashed chan struct{}) func(payments.Step, string, string) bool {
	var fired atomic.Bool
	return func(step payments.Step, _, _ string) bool {
		if step != at || !fired.CompareAndSwap(false, true) {
			return false
		}
		kills.Add(1)
		close(crashed)
		return true
	}
}

// serve runs one request through h in process; crashed reports that it
// died at a failpoint (the connection would have been cut).
func serve(h http.Handler, key string, amount int) (status int, body string, crashed bool) {
	defer func() {
		if r := recover(); r != nil {
			if r != http.ErrAbortHandler {
				panic(r)
			}
			crashed = true
		}
	}()
	req := httptest.NewRequest(http.MethodPost, "/v1/payments", strings.NewReader(fmt.Sprintf(`{"amount": %d, "currency": "EUR"}`, amount)))
	req.Header.Set("Idempotency-Key", key)
	req.Header.Set("X-Request-Timeout-Ms", "5000")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String(), false
}

// untilFinal retries key on h, as a client would after a cut connection,
// until an answer that is not 409 (a claim still held), 503 or 504 (retry
// with the same key, their bodies say), for at most within; retried, when
// not nil, counts the answers retried.
func untilFinal(t *testing.T, h http.Handler, key string, amount int, within time.Duration, retried *atomic.Int64) (int, string) {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		status, body, _ := serve(h, key, amount)
		switch status {
		case http.StatusConflict, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		default:
			return status, body
		}
		if retried != nil {
			retried.Add(1)
		}
		time.Sleep(killLease)
	}
	t.Errorf("key %s: no final answer in %s", key, within)
	return 0, ""
}

// killOutcome tallies a kill-point run.
type killOutcome struct {
	mu        sync.Mutex
	acked     map[string]string        // key → payment id the client saw created
	steps     map[string]payments.Step // key → the step it was killed at
	kills     atomic.Int64
	answers   int
	conflicts int // copies of one key answered with different payments
}

// killClient is the processor client every server in these tests shares:
// each kill point makes two servers, and a transport of their own each
// would leave some two thousand idle pools behind.
var killClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

// newServer makes a service on st; call it on the test's goroutine.
func newServer(t *testing.T, st store.Store, procURL string, opts ...payments.Option) *payments.Server {
	t.Helper()
	srv, err := payments.New(append([]payments.Option{payments.WithStore(st), payments.WithProcessorURL(procURL), payments.WithLease(killLease), payments.WithHTTPClient(killClient)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// TestCrash_killPoints kills the service at every step of the claim →
// charge → complete protocol, killKeys keys per step and store backend
// (in process: the request dies at the failpoint, the service's memory is
// dropped, and a new service opens the same store), then retries each key
// until a final answer. A third of the keys race three copies across the
// crash: one on the dying service, two on its successor. The processor's
// ledger must show each payment charged once, every payment a client saw
// created must be charged and recorded, and copies agree.
func TestCrash_killPoints(t *testing.T) {
	total := atomic.Int64{}
	for _, kind := range storeKinds {
		t.Run(kind, func(t *testing.T) {
			st := openStore(t, kind)
			proc, direct := startProcessor(t)
			front := newRequestCounter(t, direct)
			procURL := front.url
			out := &killOutcome{acked: map[string]string{}, steps: map[string]payments.Step{}}
			var wg sync.WaitGroup
			sem := make(chan struct{}, 8)
			for si, step := range payments.Steps() {
				for i := range killKeys {
					key := fmt.Sprintf("kill-%s-%d", step, i)
					amount := 1000 + si*killKeys + i
					sem <- struct{}{}
					crashed := make(chan struct{})
					dying := newServer(t, st, procURL, payments.WithFailpoint(crashFirst(step, &out.kills, crashed)))
					next := newServer(t, st, procURL)
					wg.Go(func() {
						defer func() { <-sem }()
						killOne(t, dying, next, crashed, step, key, amount, i%3 == 0, out)
					})
				}
			}
			wg.Wait()
			keys := len(payments.Steps()) * killKeys
			ledger := proc.Ledger()
			// Each payment has one processor key (its id), so a charge
			// made twice shows as more charges than keys.
			duplicates := ledger.Charges - len(out.acked)
			lost := 0
			for key, id := range out.acked {
				if ledger.ByKey[id] != 1 {
					lost++
					t.Errorf("key %s: the client saw payment %s created; the processor charged it %d times", key, id, ledger.ByKey[id])
				}
				if _, err := st.Payment(context.Background(), "public", id); err != nil {
					lost++
					t.Errorf("key %s: payment %s acknowledged but not recorded: %v", key, id, err)
				}
			}
			if ledger.Charges != keys {
				t.Errorf("%d charges for %d payments", ledger.Charges, keys)
			}
			if out.conflicts > 0 {
				t.Errorf("%d keys' copies were answered with different payments", out.conflicts)
			}
			// The processor dedupes a re-driven id, so the charges alone
			// cannot show a needless re-drive: count its requests. A crash
			// after the outcome was committed must be answered from the
			// store (one request); one between the charge and the commit
			// must be re-driven (two or more).
			requests := front.counts()
			most := 0
			for key, id := range out.acked {
				n := requests[id]
				most = max(most, n)
				switch step := out.steps[key]; {
				case step == payments.StepCompleted && n != 1:
					t.Errorf("key %s, killed after the commit: %d processor requests; want 1 (the retry replays the stored answer)", key, n)
				case step == payments.StepCharged && n < 2:
					t.Errorf("key %s, killed after the charge: %d processor requests; want the retry to re-drive it", key, n)
				case n < 1:
					t.Errorf("key %s: acknowledged with no processor request", key)
				}
			}
			total.Add(out.kills.Load())
			t.Logf("%s: %d kill points (%d steps × %d keys, copies racing on a third), %d payments acknowledged, %d charges, %d duplicate charges, %d lost acknowledged payments, at most %d processor requests for one payment",
				kind, out.kills.Load(), len(payments.Steps()), killKeys, len(out.acked), ledger.Charges, duplicates, lost, most)
		})
	}
	t.Logf("kill points in all: %d", total.Load())
}

// killOne drives one key across a crash at step. With race, two more
// copies of the request reach the successor the moment the first dies,
// while its claim is still held.
func killOne(t *testing.T, dying, next *payments.Server, crashed chan struct{}, step payments.Step, key string, amount int, race bool, out *killOutcome) {
	copies := 1
	if race {
		copies = 3
	}
	answers := make([]string, copies)
	firstDone := make(chan struct{})
	var wg sync.WaitGroup
	for c := range copies {
		wg.Go(func() {
			if c == 0 {
				defer close(firstDone)
				// The first copy meets the dying service; cut off, its
				// client retries on the successor.
				status, body, died := serve(dying, key, amount)
				if !died {
					t.Errorf("key %s: the failpoint at %s did not fire (answer %d)", key, step, status)
					answers[c] = fmt.Sprintf("%d %s", status, paymentID(body))
					return
				}
			} else {
				select {
				case <-crashed:
				case <-firstDone:
				}
			}
			status, body := untilFinal(t, next, key, amount, 10*time.Second, nil)
			answers[c] = fmt.Sprintf("%d %s", status, paymentID(body))
		})
	}
	wg.Wait()
	out.mu.Lock()
	defer out.mu.Unlock()
	for _, a := range answers[1:] {
		if a != answers[0] {
			out.conflicts++
			t.Errorf("key %s: copies answered %q", key, answers)
			break
		}
	}
	if status, id, _ := strings.Cut(answers[0], " "); status == "201" && id != "" {
		out.acked[key], out.steps[key] = id, step
	} else {
		t.Errorf("key %s: final answer %q; want 201 with a payment", key, answers[0])
	}
}

// requestCounter is a loopback front for the processor that counts the
// charge requests under each Idempotency-Key.
type requestCounter struct {
	url string
	mu  sync.Mutex
	n   map[string]int
}

func newRequestCounter(t *testing.T, processorURL string) *requestCounter {
	t.Helper()
	target, err := url.Parse(processorURL)
	if err != nil {
		t.Fatal(err)
	}
	rc := &requestCounter{n: map[string]int{}}
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/charges" {
			rc.mu.Lock()
			rc.n[r.Header.Get("Idempotency-Key")]++
			rc.mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	rc.url = srv.URL
	return rc
}

// counts returns the requests counted so far by key.
func (rc *requestCounter) counts() map[string]int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return maps.Clone(rc.n)
}

// paymentID pulls "id" out of a payment body.
func paymentID(body string) string {
	_, rest, ok := strings.Cut(body, `"id":"`)
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, `"`)
	return id
}

// TestCrash_lostClaim: a claim committed, the charge made, then the claim
// lost (as a store restored from a backup loses it) before the service
// records the outcome. The retry claims afresh, and because the payment id
// (the processor's key) derives from the tenant, key and payload rather than
// from the lost claim, the processor replays the charge instead of making a
// second one.
func TestCrash_lostClaim(t *testing.T) {
	path := t.TempDir() + "/payments.db"
	st, err := store.Open(context.Background(), "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	proc, procURL := startProcessor(t, processor.WithSeed(1))
	var lost atomic.Int64
	dying := newServer(t, st, procURL, payments.WithFailpoint(func(step payments.Step, _, key string) bool {
		if step != payments.StepCharged || !lost.CompareAndSwap(0, 1) {
			return false
		}
		if _, err := db.Exec(`DELETE FROM idempotency_records WHERE key = ?`, key); err != nil {
			t.Errorf("losing the claim: %v", err)
		}
		return true
	}))
	const key, amount = "lost-claim", 4242
	if _, _, crashed := serve(dying, key, amount); !crashed {
		t.Fatal("the failpoint did not fire")
	}
	status, body := untilFinal(t, newServer(t, st, procURL), key, amount, 10*time.Second, nil)
	if status != http.StatusCreated {
		t.Fatalf("retry after the lost claim: %d %s", status, body)
	}
	if l := proc.Ledger(); l.Charges != 1 {
		t.Errorf("%d charges after a lost claim; want 1 (ledger %+v)", l.Charges, l)
	}
}

// TestCrash_postgresRestart crashes PostgreSQL (immediate shutdown) and
// brings it back while eight clients create payments, each retrying its
// key until a final answer: errors during the outage are expected; a
// payment charged twice, or acknowledged and then missing, is not.
func TestCrash_postgresRestart(t *testing.T) {
	dsn, restart := pgtest.Restartable(t)
	st, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	proc, procURL := startProcessor(t)
	srv := newServer(t, st, procURL)
	const clients, perClient = 8, 40
	var sent, sentAtCrash atomic.Int64
	restarted := make(chan error, 1)
	go func() {
		for sent.Load() < clients*perClient/3 {
			time.Sleep(time.Millisecond)
		}
		sentAtCrash.Store(sent.Load())
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		err := restart(ctx)
		t.Logf("PostgreSQL crashed and back in %s, %d requests in", time.Since(start).Round(time.Millisecond), sent.Load())
		restarted <- err
	}()
	acked := make([]map[string]string, clients)
	var unavailable atomic.Int64
	var wg sync.WaitGroup
	for c := range clients {
		acked[c] = map[string]string{}
		wg.Go(func() {
			for i := range perClient {
				key := fmt.Sprintf("pg-%d-%d", c, i)
				sent.Add(1)
				status, body := untilFinal(t, srv, key, 100+i, 30*time.Second, &unavailable)
				if status == http.StatusCreated {
					acked[c][key] = paymentID(body)
				} else {
					t.Errorf("key %s: %d %s", key, status, body)
				}
			}
		})
	}
	wg.Wait()
	if err := <-restarted; err != nil {
		t.Fatalf("restarting PostgreSQL: %v", err)
	}
	if at := sentAtCrash.Load(); at >= clients*perClient {
		t.Fatalf("the crash came after all %d payments were sent: it hit no load", at)
	}
	ledger := proc.Ledger()
	lost, n := 0, 0
	for _, m := range acked {
		for key, id := range m {
			n++
			if ledger.ByKey[id] != 1 {
				lost++
				t.Errorf("key %s: payment %s acknowledged, charged %d times", key, id, ledger.ByKey[id])
			}
			if _, err := st.Payment(context.Background(), "public", id); err != nil {
				lost++
				t.Errorf("key %s: payment %s acknowledged but not recorded: %v", key, id, err)
			}
		}
	}
	if ledger.Charges != clients*perClient {
		t.Errorf("%d charges for %d payments", ledger.Charges, clients*perClient)
	}
	t.Logf("%d payments acknowledged, %d answers 409/503 on the way, %d charges, %d duplicate charges, %d lost acknowledged payments",
		n, unavailable.Load(), ledger.Charges, ledger.Charges-n, lost)
}
