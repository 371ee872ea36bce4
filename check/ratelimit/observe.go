package ratelimit

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"weak"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// rlProbe sends one request of a declared rate-limited route for tenant:
// a GET of the probe path, or else the first rate-limited operation with a
// fresh key. The GET is made non-replayable so net/http cannot send it
// twice behind the suite's back.
func rlProbe(ctx context.Context, c *check.Case, tenant string) (check.Observation, error) {
	h := c.Harness
	if h.Policy.RateLimitProbe == "" && len(h.Policy.RateLimited) > 0 {
		return rlOperation(ctx, c, tenant, h.Policy.RateLimited[0])
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.TargetURL+h.Policy.RateLimitProbe, nil)
	if err != nil {
		return check.Observation{}, err
	}
	// A GET without a body is replayable; an opaque empty body is not, and
	// net/http still sends no body for it.
	req.Body = io.NopCloser(strings.NewReader(""))
	h.Conventions.SetTenant(req.Header, tenant)
	sent := time.Now()
	resp, err := h.HTTPClient().Do(req)
	if err != nil {
		return check.Observation{}, err
	}
	defer resp.Body.Close()
	o := check.Observe(resp.Header, time.Now())
	body, err := io.ReadAll(io.LimitReader(resp.Body, check.MaxReplyBody))
	o.Sent, o.Status, o.Tenant, o.Body, o.Limited = sent, resp.StatusCode, tenant, body, true
	o.Source = "own GET " + h.Policy.RateLimitProbe
	noteRefusal(h, o)
	return o, err
}

// rlOperation sends op once for tenant, with a fresh key.
func rlOperation(ctx context.Context, c *check.Case, tenant string, op check.Operation) (check.Observation, error) {
	req, err := op.Prepare(check.Values{}, false)
	if err != nil {
		return check.Observation{}, err
	}
	sent := time.Now()
	r := c.Harness.Send(ctx, check.Call{Key: c.Key(), Tenant: tenant, Amount: c.Amount(), Op: &op})
	if r.Err != nil {
		return check.Observation{}, r.Err
	}
	o := check.Observe(r.Header, sent.Add(r.Took))
	o.Sent, o.Status, o.Tenant, o.Body, o.Limited = sent, r.Status, tenant, r.Body, true
	o.Source = "own " + cmp.Or(req.Method, http.MethodPost) + " " + req.Path
	noteRefusal(c.Harness, o)
	return o, nil
}

// journalObs returns every response the front proxy passed from the target
// in the whole run: responses a fault rule made up are not the target's.
// Each journal's responses are read once (obsMemo): the run-wide scans
// read a run of tens of thousands of exchanges one after another.
func journalObs(h *check.Harness) []check.Observation {
	routes := limitedRoutes(h)
	read := obsReader{tenant: h.Conventions.TenantHeaderName(), routes: fmt.Sprint(routes)}
	key := weak.Make(h.Journal)
	v, loaded := obsMemo.LoadOrStore(key, &obsCache{reader: read})
	if !loaded {
		runtime.AddCleanup(h.Journal, func(k weak.Pointer[faults.Journal]) { obsMemo.Delete(k) }, key)
	}
	memo := v.(*obsCache)
	if memo.reader != read {
		memo = &obsCache{reader: read} // another harness's reading: not shared
	}
	memo.mu.Lock()
	defer memo.mu.Unlock()
	for _, e := range h.Journal.After(memo.upTo, faults.BySide("front")) {
		memo.upTo = max(memo.upTo, e.Seq)
		if e.Rule != "" || e.Outcome != faults.OutcomePassed || e.Status == 0 {
			continue
		}
		hd := http.Header{}
		for k, v := range e.ResponseHeaders {
			hd[k] = []string{v}
		}
		at := e.Answered
		if at.IsZero() {
			at = e.Finished
		}
		o := check.Observe(hd, at)
		o.Sent = e.Received
		o.Status, o.Tenant, o.Source = check.AnswerStatus(e), e.Header(read.tenant), "journal "+e.ID
		o.Entry, o.Limited = &e, anyRoute(routes, e.Method, e.Path)
		memo.obs = append(memo.obs, o)
	}
	return slices.Clip(memo.obs)
}

// obsMemo holds, per journal, the responses journalObs has read from it.
var obsMemo sync.Map // weak.Pointer[faults.Journal] → *obsCache

// obsCache is what journalObs read from one journal, up to entry upTo.
type obsCache struct {
	reader obsReader
	mu     sync.Mutex
	upTo   uint64
	obs    []check.Observation
}

// obsReader is what a reading depends on besides the journal.
type obsReader struct{ tenant, routes string }

// sample sends n sequential probes (when a probe is declared) on a fresh
// tenant, then one effectful request (a declared rate-limited operation when
// there is one), so a scan check has responses of its own even when run alone.
func sampleRoute(ctx context.Context, c *check.Case, n int) []check.Observation {
	tenant := c.Tenant()
	var out []check.Observation
	for range n {
		if c.Harness.Policy.RateLimitProbe == "" {
			break
		}
		if o, err := rlProbe(ctx, c, tenant); err == nil {
			out = append(out, o)
		}
	}
	op, limited := c.Harness.Operation, false
	if len(c.Harness.Policy.RateLimited) > 0 {
		op, limited = c.Harness.Policy.RateLimited[0], true
	}
	req, err := op.Prepare(check.Values{}, false)
	if err != nil {
		return out
	}
	sent := time.Now()
	r := c.Harness.Send(ctx, check.Call{Key: c.Key(), Tenant: tenant, Amount: c.Amount(), Op: &op})
	if r.Err == nil {
		o := check.Observe(r.Header, sent.Add(r.Took))
		o.Sent, o.Limited = sent, limited
		o.Status, o.Tenant, o.Body, o.Source = r.Status, tenant, r.Body, "own "+cmp.Or(req.Method, http.MethodPost)+" "+req.Path
		out = append(out, o)
	}
	return out
}

// seen is everything a scan check judges: its own sample, then the journal.
func seenResponses(ctx context.Context, c *check.Case) []check.Observation {
	c.Harness.Settle(ctx)
	mark := c.Harness.Journal.LastSeq()
	own := sampleRoute(ctx, c, 6)
	c.Harness.Settle(ctx)
	journal := journalObs(c.Harness)
	// A slice of its own, sized once: runScan filters it in place.
	out := make([]check.Observation, 0, len(own)+len(journal))
	out = append(out, own...)
	for _, o := range journal {
		// Own replies are journaled too; they are the sample's tenant's
		// entries after the mark. A declared tenant's earlier entries came
		// from other checks and are kept.
		if len(own) == 0 || o.Entry.Seq <= mark || o.Tenant != own[0].Tenant {
			out = append(out, o)
		}
	}
	return out
}

// entriesOf returns the journal entries behind obs, for evidence.
func entriesOf(obs []check.Observation) []faults.Entry {
	var out []faults.Entry
	for _, o := range obs {
		if o.Entry != nil {
			out = append(out, *o.Entry)
		}
	}
	return out
}
