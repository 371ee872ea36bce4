package webhooks

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"time"

	"github.com/resilcheck/resilcheck/check"
)

// wcase is one case of the suite: the check's case, counting effects the
// way the receiver declares.
type wcase struct {
	*check.Case
	p   check.WebhookPolicy
	cfg Config
}

// begin adapts c to count an event's effects as the webhooks section
// declares, by its probe, at the ledger, or both: for the rest of the case
// c's harness is a copy with the receiver's counters.
func begin(c *check.Case) *wcase {
	h := *c.Harness // a shallow copy: the same proxies, journal and shared values
	p := h.Policy.Webhooks
	h.Probe, h.NoLedger = p.Probe, !p.Ledger
	if p.Ledger && p.LedgerKey != "" {
		h.Conventions.DependencyKey = p.LedgerKey // webhooks.effects.ledger.key_header
	}
	c.Harness = &h
	return &wcase{Case: c, p: p, cfg: config(c.Harness)}
}

// event is one event a case delivers: its id and body, the same on every
// delivery.
type event struct {
	id   string
	body []byte
}

// withEvent adapts a check of one fresh event to the kit: it counts
// effects as the receiver declares (begin) and draws the event.
func withEvent(run func(ctx context.Context, w *wcase, ev event) check.Result) func(context.Context, *check.Case) check.Result {
	return func(ctx context.Context, c *check.Case) check.Result {
		w := begin(c)
		ev, err := w.event()
		if err != nil {
			return check.Inconclusive("%v", err)
		}
		return run(ctx, w, ev)
	}
}

// event draws a fresh event: its id (tracked for the probe) and body.
func (w *wcase) event() (event, error) {
	id := "msg_" + w.Key()
	w.Track("", id)
	v := check.Values{Key: id, Amount: w.Amount()}
	if w.p.Body == nil {
		return event{id, fmt.Appendf(nil, `{"type":"payment.settled","timestamp":"2026-11-27T10:00:00Z","data":{"id":%q,"amount":%d}}`, id, v.Amount)}, nil
	}
	body, err := w.p.Body(v)
	if err != nil {
		return event{}, fmt.Errorf("webhooks: event body: %w", err)
	}
	return event{id, body}, nil
}

// delivery is one POST of an event, signed at now unless at says
// otherwise. sig, when set, replaces the signature; unsigned sends none.
type delivery struct {
	event
	at       time.Time
	sig      string
	unsigned bool
}

// deliver posts d to the receiver through the front proxy, signed with a
// timestamp of now (or d.at) unless d says otherwise.
func (w *wcase) deliver(ctx context.Context, d delivery) check.Reply {
	at := d.at
	if at.IsZero() {
		at = time.Now()
	}
	hd := http.Header{"Content-Type": {"application/json"}}
	SetHeaders(hd, w.p.Key, d.id, at, d.body)
	switch {
	case d.unsigned:
		hd.Del(HeaderSignature)
	case d.sig != "":
		hd.Set(HeaderSignature, d.sig)
	}
	op := check.Operation{Name: "webhook", Request: func(check.Values, bool) (check.Request, error) {
		return check.Request{Method: http.MethodPost, Path: w.p.Path, Header: hd.Clone(), Body: d.body}, nil
	}}
	return w.Send(ctx, check.Call{Op: &op})
}

// effects counts the case's effects, or says why they cannot be trusted.
func (w *wcase) effects(ctx context.Context) (check.Effects, string) {
	ef := w.Effects(ctx)
	return ef, w.Disagreed()
}

// landed counts the case's effects once at least one has landed, or the
// suite's landing time has passed: a receiver may answer first and record
// the effect a moment later (from a durable queue: WH-08 judges whether it
// survives a crash). For a count that must stay 0, use effects.
func (w *wcase) landed(ctx context.Context) (check.Effects, string) {
	ef, bad := w.effects(ctx)
	for end := time.Now().Add(w.cfg.landing()); ef.Total == 0 && bad == "" && time.Now().Before(end) && ctx.Err() == nil; {
		time.Sleep(50 * time.Millisecond)
		ef, bad = w.effects(ctx)
	}
	return ef, bad
}

// forged returns a signature for ev at that is its own with one bit of its MAC
// flipped: well-formed, and wrong.
func (w *wcase) forged(ev event, at time.Time) string {
	sig := Sign(w.p.Key, ev.id, at, ev.body)
	mac, _ := base64.StdEncoding.DecodeString(sig[len("v1,"):])
	mac[0] ^= 1
	return "v1," + base64.StdEncoding.EncodeToString(mac)
}

func is2xx(r check.Reply) bool { return r.Err == nil && r.Status >= 200 && r.Status < 300 }
func is4xx(r check.Reply) bool { return r.Err == nil && r.Status >= 400 && r.Status < 500 }
