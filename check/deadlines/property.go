package deadlines

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"time"

	"pgregory.net/rapid"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/headers"
	"github.com/resilcheck/resilcheck/properties"
)

// dlExplore is DL-03p's default exploring time; --explore lengthens it.
const dlExplore = 3 * time.Second

// dlLatency is one way the dependency can be slow, scaled by the request's
// budget so every draw lands before, around or after the deadline.
type dlLatency struct {
	name  string
	fault func(d time.Duration) faults.Fault // nil: unharmed
}

// dlLatencies: answering at once, holding the answer (headers late), a
// body that trickles out after prompt headers (twice: the fixed checks
// never try it), and a hang.
var dlLatencies = func() []dlLatency {
	// 40 B/s in 4-byte chunks: a charge's answer of ~100 bytes takes
	// seconds, whatever the budget drawn, and still ends within the
	// proxies' settling (5 s), so the journal holds the call to judge.
	trickle := dlLatency{name: "body trickles", fault: func(time.Duration) faults.Fault { return faults.Throttle{Rate: 40, Chunk: 4} }}
	return []dlLatency{
		{name: "prompt"},
		{name: "headers late", fault: func(d time.Duration) faults.Fault { return faults.Delay{Duration: d} }},
		trickle, trickle,
		{name: "hang", fault: func(time.Duration) faults.Fault { return faults.Blackhole{} }},
	}
}()

// deadlineProperty is DL-03p: random budgets, in every deadline header the
// target declares, against random dependency latencies; the target must
// answer by the budget, start no dependency call after it, pass on no more
// than what is left of it, and have let go of every dependency call by then.
func deadlineProperty(ctx context.Context, pc *check.Case) check.Result {
	h := pc.Harness
	// A lent copy is warmed up as the check's own is: its last check may
	// have left a breaker open that would answer without calling the
	// dependency.
	lent := h.PrepareLent(ctx, pc.ID, "", dlWarmup)
	dc, res, ok := dlBegin(ctx, pc)
	cold := lent()
	if !ok {
		return res
	}
	tol := dc.tol
	want := fmt.Sprintf("for every budget, header and dependency latency: an answer, every dependency call started and ended, by the budget (+%s); each call's forwarded budget ≤ what was left (+%s)", dlMs(tol), dlMs(tol))
	formats := h.Policy.DeadlineHeaders
	if len(formats) == 0 {
		formats = []string{h.Conventions.DeadlineHeaderName()}
	}
	cfg := properties.Config{Seed: h.Rand(pc.ID).Uint64(), ShrinkTime: 6 * time.Second, MinCases: 2}
	cfg = h.Exploring(cfg, dlExplore)
	trouble := &check.Trouble{}
	var ms []*dlMachine
	r := h.ExploreEach(pc.ID, cfg, func(w int, hw *check.Harness) func(*rapid.T) bool {
		m := &dlMachine{h: hw, ctx: ctx, id: check.WorkerID(pc.ID, w), tol: tol, formats: formats, trouble: trouble}
		ms = append(ms, m)
		if cold[w] == nil {
			return m.run
		}
		return func(t *rapid.T) bool {
			trouble.Skip(t, "warming a copy of the target up", cold[w])
			return false
		}
	})
	out := check.Exploration{Want: want, Meaningful: "reached the dependency", Trouble: trouble}.Result(r, cfg, ms[r.Worker].last)
	if r.Failed {
		out.Margin = ms[r.Worker].margin
	}
	return out
}

// dlMachine runs DL-03p's cases.
type dlMachine struct {
	trouble *check.Trouble // shared by the workers
	h       *check.Harness
	ctx     context.Context
	id      string
	tol     time.Duration
	formats []string
	cases   int
	last    []faults.Entry
	// margin is how far past the budget (tolerance included) the latest
	// failing case went, for the failures a measured time decides: a stall
	// of the runner shorter than it cannot have caused one.
	margin time.Duration
}

// run is one case: one request with a drawn budget and header against a
// drawn dependency latency. It reports whether the request reached the
// dependency.
func (m *dlMachine) run(t *rapid.T) bool {
	h := m.h
	m.cases++
	c := h.NewCase(m.ctx, fmt.Sprintf("%s-%d", m.id, m.cases))
	defer c.Done(m.ctx)
	budget := time.Duration(rapid.IntRange(300, 900).Draw(t, "budget ms")) * time.Millisecond
	format := rapid.SampledFrom(m.formats).Draw(t, "header")
	lat := rapid.SampledFrom(dlLatencies).Draw(t, "dependency")
	d := budget * time.Duration(rapid.IntRange(1, 6).Draw(t, "latency (half budgets)")) / 2
	if lat.fault != nil {
		if err := c.Fault(h.Dependency, c.EffectMatch(0), lat.fault(d)); err != nil {
			m.trouble.Skip(t, "placing the latency", err)
		}
	}
	hd := http.Header{}
	headers.SetTimeout(hd, format, budget)
	r := h.Send(m.ctx, check.Call{Key: c.Key(), Tenant: c.Tenant(), Amount: c.Amount(), Header: hd, Timeout: budget + 5*time.Second})
	c.Done(m.ctx) // lift the latency: a trickle still running ends now
	front, found := (&dlCase{Case: c}).front(m.ctx)
	calls := (&dlCase{Case: c}).calls()
	m.last = append(append([]faults.Entry(nil), calls...), front)
	what := lat.name
	if lat.name == "headers late" {
		what += " by " + dlMs(d)
	}
	t.Logf("a budget of %s in %s; the dependency's answer: %s; %d dependency calls; the client got %s", dlMs(budget), format, what, len(calls), check.Describe(r))
	if !found {
		t.Skip("the request never reached the front proxy")
	}
	start := front.Received
	deadline := start.Add(budget + m.tol)
	m.margin = 0
	if took := dlTook(front, found, r); took > budget+m.tol {
		m.margin = took - budget - m.tol
		t.Fatalf("answered after %s, past the budget of %s", dlMs(took), dlMs(budget))
	}
	for i, e := range calls {
		if e.Received.After(deadline) {
			m.margin = e.Received.Sub(deadline)
			t.Fatalf("dependency call %d started %s after the request, past the budget of %s", i+1, dlMs(e.Received.Sub(start)), dlMs(budget))
		}
		if end := dlCallEnd(e); end.After(deadline) {
			m.margin = end.Sub(deadline)
			t.Fatalf("dependency call %d was held open %s after the request, past the budget of %s", i+1, dlMs(end.Sub(start)), dlMs(budget))
		}
		if fwd, ok, err := check.EntryBudget(e); err == nil && ok {
			// The target's clock starts when the front proxy hands it the
			// request: time the proxy (the runner) took before that is no
			// budget the target could have seen spent.
			if left := budget - e.Received.Sub(cmp.Or(front.Forwarded, start)); fwd > left+m.tol {
				m.margin = fwd - left - m.tol
				t.Fatalf("dependency call %d carried a budget of %s when %s was left", i+1, dlMs(fwd), dlMs(left))
			}
		}
	}
	return len(calls) > 0
}

// dlCallEnd is when the target let go of a dependency call: it went away,
// or the exchange finished; now if neither happened yet (the proxies'
// settling gave up on it).
func dlCallEnd(e faults.Entry) time.Time {
	switch {
	case !e.ClientGone.IsZero():
		return e.ClientGone
	case !e.Finished.IsZero():
		return e.Finished
	}
	return time.Now()
}
