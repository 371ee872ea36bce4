package check

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/headers"
)

// Harness is what checks work with: the target behind the front proxy, the
// dependency proxy, the shared journal, the operation to exercise and the
// conventions to judge it by. Fields are set once before Run and read-only
// afterwards.
type Harness struct {
	// TargetURL is the front proxy's base URL: every request goes through it.
	TargetURL string
	// Front is the proxy in front of the target; Dependency the proxy its
	// effectful calls go through (nil when the target declares none).
	Front, Dependency *faults.Proxy
	// DependencyGRPC says the dependency behind Dependency is a gRPC
	// service: a check refuses its calls with a grpc-status (GRPCRefusal),
	// as the service would, not with an HTTP status.
	DependencyGRPC bool
	// Hops are the proxies between the tiers of a multi-tier target, in
	// the order a request crosses them; empty for a target of one tier.
	Hops []Hop
	// Journal records the exchanges of both proxies.
	Journal *faults.Journal
	// Operation is the effectful request the suites exercise.
	Operation Operation
	// NoOperations says the target declares no operations (a queue
	// consumer or a webhook receiver alone): only the checks of suites
	// that drive it through their own traffic (Suite.OwnTraffic) apply.
	NoOperations bool
	// KeyedOperations are the operations an idempotency key protects; the
	// idempotency suite exercises each in turn. Empty means Operation alone.
	KeyedOperations []Operation
	// Probe reads the target's own count of the effects made for one
	// (tenant, key), for effect counting; nil when the target declares none.
	Probe func(ctx context.Context, v Values) (int, error)
	// NoLedger says the target declares no ledger: effects are counted by
	// Probe alone, never from the dependency's journal.
	NoLedger bool
	// Conventions says which header names and statuses the target speaks.
	Conventions Conventions
	// Policy is what the target declares about its retries, deadlines and
	// limits; checks judge it by this, never by the reference's numbers.
	Policy Policy
	// Seed is the run's seed; each check derives its own generator from it.
	Seed uint64
	// Client sends the harness's requests; nil means a client with no
	// timeout and no proxy from the environment.
	Client *http.Client
	// Tolerance is the slack allowed on time bounds, which are one-sided and
	// reported; it is raised to what Noise calls for.
	Tolerance time.Duration
	// Noise is the runner's measured noise; zero means not measured.
	Noise RunnerNoise
	// Reproduce is the command line that replays the whole run; checks append
	// a filter to it.
	Reproduce string
	// Explore is the time each exploring property spends generating cases;
	// 0 means each property's own small default, so a certification stays fast.
	Explore time.Duration
	// ExploreCases, when > 0, runs that many cases of each exploring
	// property (cases it skipped not counted), with no time budget: the
	// replay of a failure found in case N (--explore-cases N) reaches it
	// however fast the target answers.
	ExploreCases int

	// Suites are the run's suites, whether or not their checks were
	// selected: their tolerances are reported and their slack bounds how
	// long a stall of the runner a timing verdict can bear.
	Suites []Suite
	// CopyN numbers the copy of the target h drives, from 1, as its logs
	// and journal entries do; 0 when the run has one.
	CopyN int
	// Beside are other copies of the target, each behind proxies of its
	// own, that the running check has to itself alongside this one: the
	// runner lends them to exploring checks (Check.Explores), whose workers
	// explore side by side, one per copy. Empty otherwise.
	Beside []*Harness

	values *sharedValues // see shared; a copy of the harness shares them
	// stallWatch replaces watchStalls in tests.
	stallWatch func() (stop func() stalls)
}

// Operation describes the effectful request. Render returns the request
// body for v; alt selects a different payload under the same key.
type Operation struct {
	Name        string // names the operation in reports; empty for a target with one
	KeyHeader   string // the header its key goes in; empty means Conventions.KeyHeader
	Method      string
	Path        string
	ContentType string
	Render      func(v Values, alt bool) ([]byte, error)
	// Success lists statuses meaning the operation took effect; empty means 2xx.
	Success []int
	// GRPC says the operation is a unary gRPC call: Send judges its answer
	// by grpc-status (see Reply.GRPC).
	GRPC bool
	// EffectMethod and EffectPath select the effectful calls at the
	// dependency (a path glob); empty means POST to any path.
	EffectMethod, EffectPath string
	// Request, when set, renders the whole request (method, path, headers and
	// body) and takes precedence over Method, Path and Render.
	Request func(v Values, alt bool) (Request, error)
}

// Request is a rendered operation, without the key and tenant headers,
// which the harness sets itself.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// render returns the request for v, from Request when set, else from
// Method, Path, ContentType and Render.
func (o Operation) Prepare(v Values, alt bool) (Request, error) {
	if o.Request != nil {
		return o.Request(v, alt)
	}
	body, err := o.Render(v, alt)
	if err != nil {
		return Request{}, err
	}
	return Request{
		Method: cmp.Or(o.Method, http.MethodPost),
		Path:   o.Path,
		Header: http.Header{"Content-Type": {cmp.Or(o.ContentType, "application/json")}},
		Body:   body,
	}, nil
}

// Values are the template values of one logical operation.
type Values struct {
	Key    string
	Tenant string
	Amount int
	Seq    int
}

// Conventions are the target's dialect. Zero values mean the documented
// defaults.
type Conventions struct {
	KeyHeader           string // default Idempotency-Key
	DependencyKey       string // the key header the target forwards to its dependency; default Idempotency-Key
	KeyFormat           string // "token" (default) or "sf-string"
	Profile             string // "ietf" (default) or "stripe"
	TenantHeader        string // default X-Tenant-ID; "-" means the target has no tenancy
	DeadlineHeader      string // default X-Request-Timeout-Ms
	MismatchStatus      int    // default 422 (ietf) or 400 (stripe)
	InProgressStatus    int    // default 409
	MissingKeyStatus    int    // default 400
	MaxConcurrentCopies int    // upper bound of the concurrent-copies draw; default 50
	// MaxBudget is how long the target takes at most to answer a request
	// that carries no deadline; default 10 s.
	MaxBudget time.Duration
	// Tenants are the tenants the target knows (e.g. bound to credentials);
	// checks take theirs from this list in turn. Empty means the harness
	// makes up a fresh tenant per request, so checks never share quotas.
	Tenants []string
	// TenantHeaders returns the headers every request made as tenant
	// carries (e.g. its credential); nil means none.
	TenantHeaders func(tenant string) http.Header
	// KeyTTL is how long the target keeps a key; a check that needs a key
	// kept longer is not applicable. Zero means keys are kept long enough.
	KeyTTL time.Duration
}

func (c Conventions) KeyHeaderName() string { return cmp.Or(c.KeyHeader, "Idempotency-Key") }

// KeyHeaderOf is the header op's key goes in.
func (h *Harness) KeyHeaderOf(op Operation) string {
	return cmp.Or(op.KeyHeader, h.Conventions.KeyHeaderName())
}
func (c Conventions) DependencyKeyName() string { return cmp.Or(c.DependencyKey, "Idempotency-Key") }

// SetTenant puts tenant on hd: its tenant header and the headers bound to
// it, leaving alone any header hd already has (an operation's own).
func (c Conventions) SetTenant(hd http.Header, tenant string) {
	if tenant == "" {
		return
	}
	if th := c.TenantHeaderName(); th != "" {
		hd.Set(th, tenant)
	}
	if c.TenantHeaders == nil {
		return
	}
	for k, vs := range c.TenantHeaders(tenant) {
		if _, set := hd[k]; !set {
			hd[k] = vs
		}
	}
}

func (c Conventions) TenantHeaderName() string {
	if c.TenantHeader == "-" {
		return ""
	}
	return cmp.Or(c.TenantHeader, "X-Tenant-ID")
}

func (c Conventions) MismatchCode() int {
	switch {
	case c.MismatchStatus != 0:
		return c.MismatchStatus
	case c.Profile == "stripe":
		return http.StatusBadRequest
	}
	return http.StatusUnprocessableEntity
}

func (c Conventions) InProgressCode() int { return cmp.Or(c.InProgressStatus, http.StatusConflict) }
func (c Conventions) MissingKeyCode() int { return cmp.Or(c.MissingKeyStatus, http.StatusBadRequest) }
func (c Conventions) CopiesCap() int      { return cmp.Or(c.MaxConcurrentCopies, 50) }

func (c Conventions) BudgetCap() time.Duration {
	if c.MaxBudget > 0 {
		return c.MaxBudget
	}
	return 10 * time.Second
}

// FormatKey renders a key as the target expects it on the wire.
func (c Conventions) FormatKey(k string) string {
	if c.KeyFormat == "sf-string" {
		return `"` + k + `"`
	}
	return k
}

// rng returns the generator of one check: derived from the run seed and
// the check ID, so a check draws the same values whatever runs before it.
func (h *Harness) Rand(checkID string) *rand.Rand {
	f := fnv.New64a()
	fmt.Fprintf(f, "%d/%s", h.Seed, checkID)
	s := f.Sum64()
	return rand.New(rand.NewPCG(h.Seed, s))
}

// tolerance returns the configured slack, 50 ms by default: enough for a
// busy runner's scheduling, far below the 1 s resolution of Retry-After.
func (h *Harness) Slack() time.Duration {
	return max(OrDuration(h.Tolerance, 50*time.Millisecond), h.Noise.Slack())
}

func OrDuration(v, def time.Duration) time.Duration {
	if v <= 0 {
		return def
	}
	return v
}

func OrFloat(v, def float64) float64 {
	if v <= 0 {
		return def
	}
	return v
}

// sharedValues are a run's shared values.
type sharedValues struct {
	mu sync.Mutex
	m  map[any]any
}

// sharedInit guards the lazy creation of a harness's shared values.
var sharedInit sync.Mutex

// Shared returns the value the run keeps under key, made by init on first
// use: state the checks of a suite share across one run, such as when a
// quota that refused a declared tenant is back. Safe for concurrent use.
func (h *Harness) Shared(key any, init func() any) any {
	sharedInit.Lock()
	if h.values == nil {
		h.values = &sharedValues{m: map[any]any{}}
	}
	sv := h.values
	sharedInit.Unlock()
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if v, ok := sv.m[key]; ok {
		return v
	}
	v := init()
	sv.m[key] = v
	return v
}

// DeadlineHeaderName is the deadline header the target reads (Conventions.DeadlineHeader,
// canonical form), X-Request-Timeout-Ms by default.
func (c Conventions) DeadlineHeaderName() string {
	return http.CanonicalHeaderKey(cmp.Or(c.DeadlineHeader, headers.RequestTimeoutMs))
}

// Copies are the copies of the target the running check may drive: h
// first, then Beside.
func (h *Harness) Copies() []*Harness {
	return append([]*Harness{h}, h.Beside...)
}

// Copy returns a copy of h with shared values of its own (Shared starts
// empty): the harness of another copy of the target, whose quota book is
// not h's. The values exist from the start, so a struct copy of the copy
// (a lane lent to a property, the run journal's view) shares them.
func (h *Harness) Copy() *Harness {
	c := *h
	c.values = &sharedValues{m: map[any]any{}}
	return &c
}
