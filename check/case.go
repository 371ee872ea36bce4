package check

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/resilcheck/resilcheck/faults"
)

// Case is one run of one check, built by the runner from the check's ID: a
// generator seeded from the run seed and the ID, the fault rules the check
// places (removed when it ends), and the journal window its evidence comes
// from. A check reaches the harness through it.
type Case struct {
	*Harness
	ID   string
	rnd  *rand.Rand // the case's draws (faults, values, amounts)
	keys *rand.Rand // its idempotency keys
	mark uint64

	mu      sync.Mutex
	rules   []placed
	n       int
	turn    int      // declared tenants handed out
	handed  []string // keys handed out by Key: the probe counts those sent
	tracked []Values // (tenant, key) pairs used otherwise, for the probe
	// disagreements records where the ledger and the probe counted
	// differently; the idempotency suite fails a check that saw one.
	disagreements []string
	// before holds the dependency keys forwarded up to beforeMark, the
	// mark it was built at (forwardedBefore).
	before     map[string]bool
	beforeMark uint64
	// unhealed is the latest heal that gave up, nil when none did.
	unhealed *unhealed
}

type placed struct {
	p    *faults.Proxy
	name string
}

// NewCase starts a case once the target is quiet; callers defer done.
// A case judged again (id ending in againSuffix) draws what the first run
// drew, with keys and tenants of its own: the same scenario, on records
// the target has not stored.
func (h *Harness) NewCase(ctx context.Context, id string) *Case {
	h.Settle(ctx)
	return &Case{Harness: h, ID: id, rnd: h.Rand(firstID(id)), keys: h.Rand(id + "/keys"), mark: h.Journal.LastSeq()}
}

// againSuffix names the case of a check judged again (rejudged).
const againSuffix = "/again"

// againID names the nth rerun of check id's case: its draws are the first
// run's, its keys its own.
func againID(id string, n int) string {
	if n == 1 {
		return id + againSuffix
	}
	return fmt.Sprintf("%s%s%d", id, againSuffix, n)
}

// firstID is the case a rerun's case id reruns (id itself for a first run,
// and for a case nested in a rerun, which draws its own).
func firstID(id string) string {
	i := strings.LastIndex(id, againSuffix)
	if i < 0 || strings.Trim(id[i+len(againSuffix):], "0123456789") != "" {
		return id
	}
	return id[:i]
}

// Rerun is which run of its check c is: 0 for the first, n for the nth
// rerun of a doubted verdict (Judge). A check that shares what it measures
// among the run's checks measures afresh on a rerun, or the rerun would
// judge the doubted measurement again.
func (c *Case) Rerun() int {
	first := firstID(c.ID)
	if first == c.ID {
		return 0
	}
	if n, err := strconv.Atoi(c.ID[len(first)+len(againSuffix):]); err == nil {
		return n
	}
	return 1
}

// Sub starts a nested case with its own generator, rules and window, for
// work that must not draw from or blame the enclosing case (a warm-up, one
// generated case of a property); callers defer its done.
func (c *Case) Sub(ctx context.Context, id string) *Case { return c.Harness.NewCase(ctx, id) }

// Restart moves the case's journal window to now, once the target is
// quiet, so exchanges of a preparation are not its evidence. A dependency
// key forwarded before it is not counted in Effects afterwards (a late
// copy of earlier work): draw the case's keys after it, never reuse one
// from before.
func (c *Case) Restart(ctx context.Context) {
	c.Harness.Settle(ctx)
	c.mark = c.Harness.Journal.LastSeq()
}

// Done removes the check's rules and waits for the target to go quiet, so
// stragglers are not blamed on the next check.
func (c *Case) Done(ctx context.Context) {
	c.mu.Lock()
	rules := c.rules
	c.rules = nil
	c.mu.Unlock()
	for _, r := range rules {
		r.p.Rules().Remove(r.name)
	}
	c.Harness.Settle(ctx)
}

// next returns a per-check sequence number from 1.
func (c *Case) next() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return c.n
}

// Key returns a fresh idempotency key: a UUIDv4 drawn from the check's
// generator (IK-11: high entropy; reproducible from the seed).
func (c *Case) Key() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b [16]byte
	for i := range b {
		b[i] = byte(c.keys.Uint32())
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	k := fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
	c.handed = append(c.handed, k)
	return k
}

// KeySeed returns a seed for a generator of keys of the case's own (a
// load.Spec's Seed), drawn from the generator Key draws from: a rerun
// draws the first run's scenario again (IntN) but never its keys, which a
// target that stores keys would answer from its records without calling
// its dependency.
func (c *Case) KeySeed() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.keys.Uint64()
}

// Tenant returns the next of the target's declared tenants in turn, so two
// calls in a case give two tenants; with none declared, a tenant name no
// other check uses, so quotas and idempotency records of checks never meet.
func (c *Case) Tenant() string {
	n := c.next()
	c.mu.Lock()
	suffix := c.keys.IntN(1 << 16)
	c.mu.Unlock()
	t := fmt.Sprintf("rc-%s-%d-%04x", c.ID, n, suffix)
	c.mu.Lock()
	defer c.mu.Unlock()
	if ts := c.Harness.Conventions.Tenants; len(ts) > 0 {
		t = ts[c.turn%len(ts)]
		c.turn++
	}
	return t
}

func (c *Case) IntN(n int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rnd.IntN(n)
}

// Amount draws an amount for a payload; 402 is avoided since processors
// conventionally decline it.
func (c *Case) Amount() int {
	a := 100 + c.IntN(9900)
	if a == 402 {
		a++
	}
	return a
}

// Fault places a rule on p for the rest of the check.
func (c *Case) Fault(p *faults.Proxy, m faults.Match, f faults.Fault) error {
	_, _, err := c.Rule(p, m, f)
	return err
}

// Rule places a rule on p and returns its name (journal entries carry it)
// and a function that lifts it early; done lifts it in any case.
func (c *Case) Rule(p *faults.Proxy, m faults.Match, f faults.Fault) (name string, lift func(), err error) {
	name = fmt.Sprintf("%s-%d", c.ID, c.next())
	if err := p.Rules().Add(faults.Rule{Name: name, Match: m, Fault: f}); err != nil {
		return "", nil, fmt.Errorf("check: placing fault %s: %w", name, err)
	}
	c.mu.Lock()
	c.rules = append(c.rules, placed{p, name})
	c.mu.Unlock()
	return name, func() { p.Rules().Remove(name) }, nil
}

// Entries returns the journal entries since the check began on side
// ("front" or "dependency"), in finishing order.
func (c *Case) Entries(side string) []faults.Entry {
	return c.Harness.Journal.After(c.mark, faults.BySide(side))
}

// Settle waits until no proxy (front, hops, dependency) has an exchange in
// flight, bounded so a target that never lets go cannot hang the run.
func (h *Harness) Settle(ctx context.Context) {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if !h.busy() {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// EffectMatch selects the effectful dependency calls; first > 0 limits the
// rule to the first calls after it is placed.
func (c *Case) EffectMatch(first int) faults.Match {
	return faults.Match{
		Method: cmp.Or(c.Harness.Operation.EffectMethod, http.MethodPost),
		Path:   c.Harness.Operation.EffectPath,
		First:  first,
	}
}
