package suites

import (
	"cmp"
	"context"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/faults"
)

// rlProbe sends one request of a declared rate-limited route for tenant:
// a GET of the probe path, or else the first rate-limited operation with a
// fresh key. The GET is made non-replayable so net/http cannot send it
// twice behind the suite's back.
func (c *Case) rlProbe(ctx context.Context, tenant string) (rlObs, error) {
	h := c.h
	if h.Policy.RateLimitProbe == "" && len(h.Policy.RateLimited) > 0 {
		return c.rlOperation(ctx, tenant, h.Policy.RateLimited[0])
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.TargetURL+h.Policy.RateLimitProbe, nil)
	if err != nil {
		return rlObs{}, err
	}
	// A GET without a body is replayable; an opaque empty body is not, and
	// net/http still sends no body for it.
	req.Body = io.NopCloser(strings.NewReader(""))
	h.Conventions.setTenant(req.Header, tenant)
	sent := time.Now()
	resp, err := h.client().Do(req)
	if err != nil {
		return rlObs{}, err
	}
	defer resp.Body.Close()
	o := observe(resp.Header, time.Now())
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxReplyBody))
	o.sent, o.status, o.tenant, o.body, o.limited = sent, resp.StatusCode, tenant, body, true
	o.source = "own GET " + h.Policy.RateLimitProbe
	h.noteRefusal(o)
	return o, err
}

// rlOperation sends op once for tenant, with a fresh key.
func (c *Case) rlOperation(ctx context.Context, tenant string, op Operation) (rlObs, error) {
	req, err := op.render(Values{}, false)
	if err != nil {
		return rlObs{}, err
	}
	sent := time.Now()
	r := c.h.send(ctx, call{key: c.key(), tenant: tenant, amount: c.amount(), op: &op})
	if r.err != nil {
		return rlObs{}, r.err
	}
	o := observe(r.header, sent.Add(r.took))
	o.sent, o.status, o.tenant, o.body, o.limited = sent, r.status, tenant, r.body, true
	o.source = "own " + cmp.Or(req.Method, http.MethodPost) + " " + req.Path
	c.h.noteRefusal(o)
	return o, nil
}

// journalObs returns every response the front proxy passed from the target
// in the whole run: responses a fault rule made up are not the target's.
func (h *Harness) journalObs() []rlObs {
	var out []rlObs
	routes := h.limitedRoutes()
	for _, e := range h.Journal.After(0, faults.BySide("front")) {
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
		o := observe(hd, at)
		o.sent = e.Received
		o.status, o.tenant, o.source = e.Status, e.Header(h.Conventions.tenantHeader()), "journal "+e.ID
		o.entry, o.limited = &e, anyRoute(routes, e.Method, e.Path)
		out = append(out, o)
	}
	return out
}

// sample sends n sequential probes (when a probe is declared) on a fresh
// tenant, then one effectful request (a declared rate-limited operation when
// there is one), so a scan check has responses of its own even when run alone.
func (c *Case) sample(ctx context.Context, n int) []rlObs {
	tenant := c.tenant()
	var out []rlObs
	for range n {
		if c.h.Policy.RateLimitProbe == "" {
			break
		}
		if o, err := c.rlProbe(ctx, tenant); err == nil {
			out = append(out, o)
		}
	}
	op, limited := c.h.Operation, false
	if len(c.h.Policy.RateLimited) > 0 {
		op, limited = c.h.Policy.RateLimited[0], true
	}
	req, err := op.render(Values{}, false)
	if err != nil {
		return out
	}
	sent := time.Now()
	r := c.h.send(ctx, call{key: c.key(), tenant: tenant, amount: c.amount(), op: &op})
	if r.err == nil {
		o := observe(r.header, sent.Add(r.took))
		o.sent, o.limited = sent, limited
		o.status, o.tenant, o.body, o.source = r.status, tenant, r.body, "own "+cmp.Or(req.Method, http.MethodPost)+" "+req.Path
		out = append(out, o)
	}
	return out
}

// seen is everything a scan check judges: its own sample, then the journal.
func (c *Case) seen(ctx context.Context) []rlObs {
	c.h.settle(ctx)
	mark := c.h.Journal.LastSeq()
	own := c.sample(ctx, 6)
	c.h.settle(ctx)
	out := own
	for _, o := range c.h.journalObs() {
		// Own replies are journaled too; they are the sample's tenant's
		// entries after the mark. A declared tenant's earlier entries came
		// from other checks and are kept.
		if len(own) == 0 || o.entry.Seq <= mark || o.tenant != own[0].tenant {
			out = append(out, o)
		}
	}
	return out
}

// entriesOf returns the journal entries behind obs, for evidence.
func entriesOf(obs []rlObs) []faults.Entry {
	var out []faults.Entry
	for _, o := range obs {
		if o.entry != nil {
			out = append(out, *o.entry)
		}
	}
	return out
}
