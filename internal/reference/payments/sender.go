package payments

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/resilcheck/resilcheck/headers"
	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

// SenderConfig is the service's webhook sender: when a payment succeeds it
// delivers a Standard Webhooks-signed payment.succeeded event to URL. The
// zero value of each field but URL and Key selects its default, in brackets.
type SenderConfig struct {
	URL            string          // where events are POSTed; empty = the service sends none
	Key            []byte          // the HMAC key: the decoded whsec_ secret
	MaxAttempts    int             // attempts per event, the first included [4]
	Backoff        []time.Duration // least wait before each retry, the last repeated [200ms 400ms 800ms]
	AttemptTimeout time.Duration   // bound on one attempt [1s]
}

func (c SenderConfig) withDefaults() SenderConfig {
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 4
	}
	if len(c.Backoff) == 0 {
		// 200 ms, not less: WS-08 and WS-10 judge bursts in buckets of
		// a fifth of the first wait, and a loaded runner spreads a
		// 16-event flush over 50 ms, which 20 ms buckets took for jitter.
		c.Backoff = []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond}
	}
	if c.AttemptTimeout <= 0 {
		c.AttemptTimeout = time.Second
	}
	return c
}

// unboundedCap ends the sender-unbounded defect's retries, so a stack
// left failing does not retry for ever.
const unboundedCap = 20

// sender delivers events, each on a goroutine of its own, until Close.
type sender struct {
	cfg     SenderConfig
	defects defect.Set
	client  *http.Client
	rng     *lockedRand
	ctx     context.Context
	stop    context.CancelFunc
	wg      sync.WaitGroup

	// The sender-flush-on-recovery defect's breaker: failed attempts in a
	// row, and the channel closed to wake every waiting retry.
	mu       sync.Mutex
	failures int
	wake     chan struct{}
}

// flushAfter is how many failed attempts in a row make the
// sender-flush-on-recovery defect treat the endpoint as down.
const flushAfter = 3

func newSender(cfg SenderConfig, defects defect.Set, client *http.Client, rng *lockedRand) *sender {
	ctx, stop := context.WithCancel(context.Background())
	if client == nil {
		client = http.DefaultClient
	}
	if !defects.Has(defect.SenderFollowsRedirects) {
		// Only a 2xx is a delivery (Standard Webhooks 1.0.0, "Delivery
		// success and failure"): a redirect is answered as it came, a
		// failure, not followed as net/http's client does by default.
		c := *client
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		client = &c
	}
	return &sender{cfg: cfg.withDefaults(), defects: defects, client: client, rng: rng, ctx: ctx, stop: stop, wake: make(chan struct{})}
}

// event is one webhook: its id and body, the same on every attempt.
type event struct {
	id   string
	body []byte
}

// notify emits a payment.succeeded event for p and delivers it in the
// background. The event id is derived from the payment's, so it is the
// same on every attempt (Standard Webhooks 1.0.0, "Webhook metadata").
func (s *sender) notify(p paymentView) {
	body, _ := json.Marshal(map[string]any{"type": "payment.succeeded", "timestamp": time.Now().UTC().Format(time.RFC3339),
		"data": p})
	s.wg.Go(func() { s.deliver(event{id: "msg_" + p.ID, body: body}) })
}

// deliver attempts ev until the endpoint takes it (2xx), says it is gone
// (410), or the attempts run out, waiting between attempts the backoff
// with jitter, or the endpoint's Retry-After on a 429 or 503 when longer.
func (s *sender) deliver(ev event) {
	for n := 1; ; n++ {
		status, ra := s.attempt(ev, n)
		woken := s.record(status/100 == 2)
		switch {
		case status/100 == 2:
			return
		case status == http.StatusGone && !s.defects.Has(defect.SenderRetryGone):
			return
		case s.defects.Has(defect.SenderNoRetry):
			return
		case n >= s.cfg.MaxAttempts && !s.defects.Has(defect.SenderUnbounded), n >= unboundedCap:
			return
		}
		wait := s.backoff(n)
		if (status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable) && ra > wait &&
			!s.defects.Has(defect.SenderIgnoreRetryAfter) {
			wait = ra
		}
		select {
		case <-s.ctx.Done():
			return
		case <-time.After(wait):
		case <-woken:
		}
	}
}

// record notes an attempt's outcome for the sender-flush-on-recovery
// defect and returns what wakes a retry waiting after it: nil (nothing but
// its wait) without the defect. With it, a success after flushAfter
// failures in a row releases every waiting retry at once, the endpoint
// being taken for back up.
func (s *sender) record(ok bool) <-chan struct{} {
	if !s.defects.Has(defect.SenderFlushOnRecovery) {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case !ok:
		s.failures++
	case s.failures >= flushAfter:
		close(s.wake)
		s.wake, s.failures = make(chan struct{}), 0
	default:
		s.failures = 0
	}
	return s.wake
}

// backoff is the wait after attempt n: the declared least wait stretched
// by a random 0 to 100 %, so events failing together spread out over as
// wide a range as the wait itself.
func (s *sender) backoff(n int) time.Duration {
	if s.defects.Has(defect.SenderNoBackoff) {
		return 0
	}
	floor := s.cfg.Backoff[min(n, len(s.cfg.Backoff))-1]
	if s.defects.Has(defect.SenderNoJitter) {
		return floor
	}
	return floor + time.Duration(s.rng.int64N(int64(floor)))
}

// attempt posts ev once, signed at now, and returns the status (0 when the
// attempt failed) and the endpoint's Retry-After.
func (s *sender) attempt(ev event, n int) (int, time.Duration) {
	timeout := s.cfg.AttemptTimeout
	if s.defects.Has(defect.SenderNoTimeout) {
		timeout = 24 * time.Hour // as good as none: Close ends it first
	}
	ctx, cancel := context.WithTimeout(s.ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.URL+"/webhooks", bytes.NewReader(ev.body))
	if err != nil {
		return 0, 0
	}
	req.Header.Set("Content-Type", "application/json")
	id := ev.id
	if s.defects.Has(defect.SenderNewID) && n > 1 {
		id += "_" + strconv.Itoa(n)
	}
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	req.Header.Set("Webhook-Id", id)
	req.Header.Set("Webhook-Timestamp", ts)
	if !s.defects.Has(defect.SenderUnsignedRetries) || n == 1 {
		req.Header.Set("Webhook-Signature", sign(s.cfg.Key, id, ts, ev.body))
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, 0
	}
	defer resp.Body.Close()
	var ra time.Duration
	if v := resp.Header.Get("Retry-After"); v != "" {
		if r, err := headers.ParseRetryAfter(v, time.Now()); err == nil {
			ra = r.Delay
		}
	}
	return resp.StatusCode, ra
}

// sign is the Standard Webhooks 1.0.0 signature of a delivery: "v1," and
// the base64 HMAC-SHA256 of "id.timestamp.body", written here with
// crypto/hmac independently of the harness's signer, as verifyDelivery is.
func sign(key []byte, id, ts string, body []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// close stops retries and waits for attempts in flight.
func (s *sender) close() {
	s.stop()
	s.wg.Wait()
}
