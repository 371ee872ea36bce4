package idempotency

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"pgregory.net/rapid"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/properties"
)

// propertyConfig bounds the idempotency property so a certification stays
// fast: ikExplore, but at least the eight cases it ran before it had a
// time budget, over all its workers; a failure is shrunk for at most
// ShrinkTime.
var propertyConfig = properties.Config{Floor: 8, ShrinkTime: 4 * time.Second}

// ikExplore is IK-17p's default exploring time; --explore lengthens it.
const ikExplore = 1500 * time.Millisecond

func idempotencyProperty(ctx context.Context, pc *check.Case) check.Result {
	h := pc.Harness
	if h.Dependency != nil {
		// Each copy starts healthy, as the first check on a fresh target
		// would meet it: one the scheduler lent after a check that failed
		// the dependency may hold an open breaker, and no operation would
		// succeed on it.
		var wg sync.WaitGroup
		for w, hw := range h.Copies() {
			wg.Go(func() {
				c := hw.NewCase(ctx, check.WorkerID(pc.ID, w)+"~heal")
				defer c.Done(ctx)
				_ = c.Heal(ctx, hw.Policy.Retry.HealStreak(), hw.HealWithin())
			})
		}
		wg.Wait()
	}
	probe := pc.Sub(ctx, pc.ID+"/probe")
	first := h.Send(ctx, check.Call{Key: probe.Key(), Tenant: probe.Tenant(), Amount: probe.Amount()})
	probe.Done(ctx)
	if !h.Succeeded(first) {
		return check.Inconclusive("the operation does not succeed even without faults (%s); the property needs successes to judge", check.Describe(first))
	}
	cfg := h.Exploring(propertyConfig, ikExplore)
	cfg.Seed = h.Rand(pc.ID).Uint64()
	var cases, successes atomic.Int64
	trouble := &check.Trouble{}
	prefix := fmt.Sprintf("p%04x", h.Rand(pc.ID+"/keys").IntN(1<<16))
	res := h.ExploreEach(pc.ID, cfg, func(w int, hw *check.Harness) func(*rapid.T) bool {
		return func(t *rapid.T) bool {
			n := cases.Add(1)
			c := hw.NewCase(ctx, check.WorkerID(pc.ID, w))
			defer c.Done(ctx)
			m := &idemMachine{trouble: trouble, h: hw, c: c, ctx: ctx, name: fmt.Sprintf("%s-%d", prefix, n), successes: &successes}
			m.tenants = []string{m.newTenant(0)}
			t.Repeat(map[string]func(*rapid.T){
				"newOperation":     m.newOperation,
				"retry":            m.retry,
				"concurrentBurst":  m.burst,
				"changePayload":    m.changePayload,
				"switchTenant":     m.switchTenant,
				"sameKeyNewTenant": m.sameKeyNewTenant,
				"":                 m.invariant,
			})
			return true
		}
	})
	want := "at most one effect per (tenant, key); every success for a key returns the same body; mismatched payloads rejected"
	observed := fmt.Sprintf("%d generated cases of up to ~%d steps, seed %d", res.Cases, 2*cmp.Or(cfg.Steps, properties.DefaultSteps), cfg.Seed)
	if cfg.Budget > 0 {
		observed = fmt.Sprintf("%d generated cases of up to ~%d steps in %s, seed %d", res.Cases, 2*cmp.Or(cfg.Steps, properties.DefaultSteps), cfg.Budget, cfg.Seed)
	}
	if res.Workers > 1 {
		observed += fmt.Sprintf(", on %d copies side by side", res.Workers)
		if res.Failed {
			observed += fmt.Sprintf(" (%s failed, its own seed %d)", cmp.Or(res.WorkerName, fmt.Sprintf("worker %d", res.Worker+1)), res.Seed)
		}
	}
	switch {
	case !res.Failed && trouble.Err() != nil:
		return check.Inconclusive("resilcheck could not run every case (%v), so %s is no verdict on the target", trouble.Err(), observed)
	case !res.Failed && successes.Load() == 0:
		return check.Inconclusive("no operation succeeded during the property (%s): nothing to judge", observed)
	case !res.Failed:
		return check.Pass(want, fmt.Sprintf("held over %s; %d successful answers", observed, successes.Load()))
	}
	r := check.Fail(want, res.Message)
	r.Counterexample, r.FailedCase = res.Counterexample, res.FailedCase
	r.Observed = res.Message + " (" + observed + ")"
	return r
}

// propertyResolve bounds how long the property retries one operation: long
// enough to outlast an in-progress 409, short enough that a failing target
// cannot stretch the run.
const propertyResolve = 1500 * time.Millisecond

// idemMachine models what a correct idempotent target must do for one
// generated case; its ops are the logical operations issued so far.
type idemMachine struct {
	trouble *check.Trouble // shared by every case
	h       *check.Harness
	c       *check.Case
	ctx     context.Context
	name    string
	tenants []string
	cur     int
	ops     []*idemOp
	// successes counts successful answers over all cases, so a run that
	// never saw one is reported inconclusive rather than vacuously passing.
	successes *atomic.Int64
}

type idemOp struct {
	op      *check.Operation // the operation sent; nil means Harness.Operation
	label   string           // stable name for messages: "op3"
	tenant  string
	key     string
	amount  int
	done    bool // a definitive answer was seen
	success bool
	body    []byte
	unknown bool // never resolved: may or may not have taken effect
}

// faultKinds are the front-side faults the property draws from.
var faultKinds = []string{"none", "lost-response", "reset-before-forwarding", "delay-past-client-timeout", "duplicate-delivery"}

func (m *idemMachine) newOperation(t *rapid.T) {
	i := len(m.ops)
	op := &idemOp{label: fmt.Sprintf("op%d", i), tenant: m.tenants[m.cur], key: fmt.Sprintf("%s-k%d", m.name, i), amount: 100 + i}
	if ops := m.h.KeyedOperations; len(ops) > 0 {
		op.op = &ops[rapid.IntRange(0, len(ops)-1).Draw(t, "operation")]
		op.label += " (" + op.op.Name + ")"
	}
	m.add(op)
	m.exercise(t, op, rapid.SampledFrom(faultKinds).Draw(t, "fault"))
}

// add records op in the model, and its (tenant, key) for the probe.
func (m *idemMachine) add(op *idemOp) {
	m.ops = append(m.ops, op)
	m.c.Track(op.tenant, op.key)
}

// newTenant names tenant i of the case: the target's declared tenants in
// turn, else a fresh name; ok is false when every declared one is taken.
func (m *idemMachine) newTenant(i int) string {
	if ts := m.h.Conventions.Tenants; len(ts) > 0 {
		return ts[i%len(ts)]
	}
	return fmt.Sprintf("%s-t%d", m.name, i)
}

// succeeded reports whether r means op took effect, by its operation's statuses.
func (m *idemMachine) succeeded(op *idemOp, r check.Reply) bool {
	if op.op != nil {
		return op.op.Succeeded(r)
	}
	return m.h.Succeeded(r)
}

func (m *idemMachine) retry(t *rapid.T) {
	if len(m.ops) == 0 {
		t.Skip("no operation yet")
	}
	op := m.ops[rapid.IntRange(0, len(m.ops)-1).Draw(t, "op")]
	m.exercise(t, op, rapid.SampledFrom(faultKinds).Draw(t, "fault"))
}

func (m *idemMachine) burst(t *rapid.T) {
	if len(m.ops) == 0 {
		t.Skip("no operation yet")
	}
	op := m.ops[rapid.IntRange(0, len(m.ops)-1).Draw(t, "op")]
	n := rapid.IntRange(2, 6).Draw(t, "copies")
	for _, r := range sendBurst(m.ctx, m.h, op.call(), n) {
		m.observe(t, op, r)
	}
	m.observe(t, op, m.h.ResolveWithin(m.ctx, op.call(), propertyResolve))
}

func (m *idemMachine) changePayload(t *rapid.T) {
	var done []*idemOp
	for _, op := range m.ops {
		if op.success {
			done = append(done, op)
		}
	}
	if len(done) == 0 {
		t.Skip("no completed operation")
	}
	op := done[rapid.IntRange(0, len(done)-1).Draw(t, "completed op")]
	c := op.call()
	c.Alt = true
	if r := m.h.Send(m.ctx, c); m.succeeded(op, r) {
		t.Fatalf("%s: a different payload under a completed key succeeded", op.label)
	}
}

func (m *idemMachine) switchTenant(t *rapid.T) {
	limit := len(m.tenants)
	if ts := m.h.Conventions.Tenants; len(ts) > 0 && limit == len(ts) {
		limit-- // every declared tenant is in use: no new one
	}
	next := rapid.IntRange(0, limit).Draw(t, "tenant")
	if next == len(m.tenants) {
		m.tenants = append(m.tenants, m.newTenant(next))
	}
	m.cur = next
}

func (m *idemMachine) sameKeyNewTenant(t *rapid.T) {
	if len(m.ops) == 0 || m.h.Conventions.TenantHeaderName() == "" {
		t.Skip("no operation yet, or no tenancy")
	}
	src := m.ops[rapid.IntRange(0, len(m.ops)-1).Draw(t, "op")]
	tenant := m.newTenant(len(m.tenants))
	if ts := m.h.Conventions.Tenants; len(ts) > 0 {
		// Declared tenants are few: take one that has not used this key.
		free := slices.DeleteFunc(slices.Clone(ts), func(tn string) bool {
			return slices.ContainsFunc(m.ops, func(o *idemOp) bool { return o.key == src.key && o.tenant == tn })
		})
		if len(free) == 0 {
			t.Skip("every declared tenant has used this key")
		}
		tenant = rapid.SampledFrom(free).Draw(t, "tenant")
	}
	if !slices.Contains(m.tenants, tenant) {
		m.tenants = append(m.tenants, tenant)
	}
	op := &idemOp{op: src.op, label: fmt.Sprintf("op%d", len(m.ops)), tenant: tenant, key: src.key, amount: src.amount}
	m.add(op)
	m.exercise(t, op, "none")
}

// exercise sends op once under fault, then resolves it as a retrying
// client would, checking every answer against the model.
func (m *idemMachine) exercise(t *rapid.T, op *idemOp, fault string) {
	c := op.call()
	if f := m.frontFault(fault); f != nil {
		match := faults.Match{Headers: map[string]string{m.h.KeyHeaderOf(op.operation(m.h)): m.h.Conventions.FormatKey(op.key)}, First: 1}
		if m.h.Conventions.TenantHeaderName() != "" {
			match.Headers[m.h.Conventions.TenantHeaderName()] = op.tenant
		}
		if err := m.c.Fault(m.h.Front, match, f); err != nil {
			m.trouble.Skip(t, "placing fault "+fault, err)
		}
		if fault == "delay-past-client-timeout" {
			c.Timeout = 150 * time.Millisecond
		}
	}
	m.observe(t, op, m.h.Send(m.ctx, c))
	m.observe(t, op, m.h.ResolveWithin(m.ctx, op.call(), propertyResolve))
}

// observe folds one answer into the model and fails on a contradiction.
func (m *idemMachine) observe(t *rapid.T, op *idemOp, r check.Reply) {
	switch {
	case m.succeeded(op, r) && op.success && !bytes.Equal(r.Body, op.body):
		t.Logf("%s: first body %s, now %s", op.label, check.Excerpt(op.body), check.Excerpt(r.Body))
		t.Fatalf("%s: two successes with different bodies", op.label)
	case m.succeeded(op, r):
		m.successes.Add(1)
		op.done, op.success, op.unknown, op.body = true, true, false, r.Body
	case r.Err == nil && r.Status/100 == 4 && r.Status != 409 && r.Status != 429:
		if op.success {
			t.Fatalf("%s: a retry of a completed operation got %d", op.label, r.Status)
		}
		op.done = true
	case !op.done:
		op.unknown = true
	}
}

// invariant: the effects at the dependency match the successes the client
// saw, one per (tenant, key), allowing one for each unresolved operation.
func (m *idemMachine) invariant(t *rapid.T) {
	if m.h.Dependency == nil {
		return
	}
	ef := m.c.Effects(m.ctx)
	if d := m.c.Disagreed(); d != "" {
		t.Fatalf("the effect counters disagree: %s", d)
	}
	var succeeded, unknown int
	for _, op := range m.ops {
		switch {
		case op.success:
			succeeded++
		case op.unknown:
			unknown++
		}
	}
	if ef.Total < succeeded || ef.Total > succeeded+unknown {
		t.Logf("effects: %s", ef)
		t.Fatalf("%d effects at the dependency for %d successful and %d unresolved operations", ef.Total, succeeded, unknown)
	}
}

// operation is what op sends.
func (op *idemOp) operation(h *check.Harness) check.Operation {
	if op.op != nil {
		return *op.op
	}
	return h.Operation
}

func (op *idemOp) call() check.Call {
	return check.Call{Key: op.key, Tenant: op.tenant, Amount: op.amount, Op: op.op}
}

// frontFault builds the fault a kind names; nil for "none".
func (m *idemMachine) frontFault(kind string) faults.Fault {
	switch kind {
	case "lost-response":
		return dropResponse()
	case "reset-before-forwarding":
		return faults.Reset{}
	case "delay-past-client-timeout":
		return faults.Delay{Duration: 400 * time.Millisecond, Phase: "response"}
	case "duplicate-delivery":
		return faults.Duplicate{Concurrent: true}
	}
	return nil
}
