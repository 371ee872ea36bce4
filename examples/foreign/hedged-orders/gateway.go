package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/cristalhq/hedgedhttp"
)

// deadlineHeader carries a budget in milliseconds, in and out.
const deadlineHeader = "X-Request-Timeout-Ms"

const (
	// hedgeDelay is hedgedhttp's timeout: how long a copy is outstanding
	// before the next one is sent. The gateway answers in a few
	// milliseconds, so only a slow call is hedged.
	hedgeDelay = 200 * time.Millisecond
	// hedgeUpto is hedgedhttp's upto: copies in all, the original included.
	hedgeUpto = 3
)

// gateway charges orders at the payment gateway. hedgedhttp makes no retry
// of its own and has no budget: every slow call gets its copies.
type gateway struct {
	url    string
	client *http.Client
}

func newGateway(base string) (*gateway, error) {
	client, err := hedgedhttp.NewClient(hedgeDelay, hedgeUpto, &http.Client{Transport: perCopy{http.DefaultTransport}})
	if err != nil {
		return nil, fmt.Errorf("hedged client: %w", err)
	}
	return &gateway{url: base + "/v1/charges", client: client}, nil
}

// perCopy prepares each copy hedgedhttp sends. hedgedhttp hands every copy
// the caller's request with a context of its own (r.WithContext), so the
// copies share one Body: the first copy drains it, and a later copy that
// net/http writes on a fresh connection fails before a byte is sent
// ("http: ContentLength=N with Body length 0"); only on an idle keep-alive
// connection does net/http rewind it with GetBody and send it. So each
// copy gets its own body from GetBody, and the budget left when it is sent.
type perCopy struct{ next http.RoundTripper }

func (p perCopy) RoundTrip(r *http.Request) (*http.Response, error) {
	c := r.Clone(r.Context())
	if r.GetBody != nil {
		body, err := r.GetBody()
		if err != nil {
			return nil, err
		}
		c.Body = body
	}
	setBudget(c)
	return p.next.RoundTrip(c)
}

// errGateway is a charge the gateway answered with a failure.
type errGateway struct{ status int }

func (e errGateway) Error() string { return fmt.Sprintf("payment gateway answered %d", e.status) }

// charge posts one charge under key; ctx carries the caller's deadline.
func (g *gateway) charge(ctx context.Context, key string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("charge request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	resp, err := g.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("charge: %w", err)
	}
	defer resp.Body.Close() // hedgedhttp's bodyWithCancel: ends the winner's context too
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("charge answer: %w", err)
	}
	if resp.StatusCode >= 300 {
		return nil, errGateway{resp.StatusCode}
	}
	return out, nil
}

// setBudget forwards what is left of the caller's deadline.
func setBudget(req *http.Request) {
	if dl, ok := req.Context().Deadline(); ok {
		req.Header.Set(deadlineHeader, strconv.FormatInt(max(0, time.Until(dl).Milliseconds()), 10))
	}
}
