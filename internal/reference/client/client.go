package client

import (
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

// Client calls the reference gateway with idempotency keys, retries,
// per-attempt timeouts and an overall deadline. It is safe for concurrent
// use; each call is one logical operation with its own key and budget.
type Client struct {
	base           *url.URL
	hc             *http.Client
	tenant         string
	policy         Policy
	attemptTimeout time.Duration
	deadline       time.Duration
	seed           uint64
	seeded         bool
	newKey         func() string
	log            *slog.Logger
	onAttempt      func(Attempt)
	defects        defect.Set // see WithDefects; nil in every real use
	hedge          hedging    // see WithHedging; zero: no hedging

	mu  sync.Mutex // guards rnd
	rnd *rand.Rand
}

// Defaults for the timeouts, used unless WithAttemptTimeout or WithDeadline
// say otherwise.
const (
	DefaultAttemptTimeout = 2 * time.Second
	DefaultDeadline       = 10 * time.Second
)

// New returns a client for the gateway at baseURL (e.g.
// "http://127.0.0.1:8080"). It fails on a URL that is not absolute http(s)
// or on an invalid option. Without WithSeed the jitter seed comes from
// crypto/rand, so a fleet of clients does not retry in lockstep; Seed
// reports it for reproduction.
func New(baseURL string, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("client: base URL %q: %w", baseURL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client: base URL %q: want http:// or https:// with a host", baseURL)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	c := &Client{
		base:           u,
		hc:             &http.Client{},
		policy:         Policy{}.normalized(),
		attemptTimeout: DefaultAttemptTimeout,
		deadline:       DefaultDeadline,
		newKey:         uuid.NewString,
		log:            slog.New(slog.DiscardHandler),
	}
	for _, o := range opts {
		if err := o(c); err != nil {
			return nil, err
		}
	}
	if !c.seeded {
		var b [8]byte
		_, _ = crand.Read(b[:]) // never fails since Go 1.24
		c.seed = binary.LittleEndian.Uint64(b[:])
	}
	c.rnd = rand.New(rand.NewPCG(c.seed, c.seed^0x9e3779b97f4a7c15))
	return c, nil
}

// Seed returns the seed of the client's jitter source.
func (c *Client) Seed() uint64 { return c.seed }

// Policy returns the retry policy in effect, defaults filled in.
func (c *Client) Policy() Policy { return c.policy }

func (c *Client) nextDelay(retry int, ra time.Duration, hasRA bool, remaining time.Duration) (time.Duration, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.defects.Has(defect.ClientIgnoreRetryAfter) {
		hasRA = false
	}
	if hasRA && c.defects.Has(defect.ClientWaitPastDeadline) && ra >= remaining {
		return min(ra, c.policy.MaxRetryAfter), nil
	}
	if d, ok := c.defectiveDelay(retry, remaining, c.rnd); ok && !hasRA {
		return d, nil
	}
	return NextDelay(c.policy, retry, ra, hasRA, remaining, c.rnd)
}
