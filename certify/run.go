package certify

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// Result is a finished (or interrupted) run: the report and the journal
// that backs its evidence.
type Result struct {
	Report  *reports.Report
	Journal *faults.Journal

	cause error // why no check ran, when the run aborted; Err returns it

	// Logs are the target's own logs (a compose stack's containers), kept
	// when a check failed or the run aborted; Write saves them in LogsDir.
	Logs []launch.Log

	// Teardown is why stopping the target failed or did not finish in
	// time (a compose stack may then outlive the run); nil when it went.
	Teardown error

	// CA is the run's CA certificate (PEM, no key) when a proxy served TLS
	// with it; Write saves it as reports.CAFile.
	CA []byte
}

// JournalFile is the journal's file name inside the report directory.
const JournalFile = "journal.jsonl"

// Run certifies the target described by cfg. It returns a Result in every
// outcome but a configuration error (wrapping ErrConfig): a target that never
// became healthy, a dependency whose upstream did not accept a connection
// before the first check (an *UnreachableError), or a run stopped before the
// target was ready, still yields a report saying so, and Result.Err carries
// the cause.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	t := cfg.Target
	if t == nil {
		return nil, fmt.Errorf("%w: no target spec", ErrConfig)
	}
	if err := cfg.checkLanes(); err != nil {
		return nil, err
	}
	if t.Kind == targets.KindClient {
		return runClient(ctx, cfg)
	}
	if err := check.Validate(cfg.suites()); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	checks, err := selectChecks(cfg.suites(), cfg.Suites, cfg.Checks)
	if err != nil {
		return nil, err
	}

	gate, err := cfg.gate()
	if err != nil {
		return nil, err
	}
	seed := cfg.Seed
	if seed == 0 {
		seed = DrawSeed()
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	started := time.Now()
	lanes := cfg.lanes(checks)
	journals, run := laneJournals(lanes, started)
	journal := cmp.Or(run, journals[0]) // what the report keeps

	h := &check.Harness{
		Journal:      journal,
		Operation:    specOperation(t),
		NoOperations: len(t.Operations) == 0,
		// The idempotency suite exercises every keyed operation; the ledger
		// and the probe count effects when the spec declares them.
		KeyedOperations: specKeyedOperations(t),
		NoLedger:        t.Effects.Ledger.Dependency == "",
		Conventions:     specConventions(t),
		Policy:          specPolicy(t),
		Seed:            seed,
		Explore:         cfg.Explore,
		ExploreCases:    cfg.ExploreCases,
		Reproduce:       reproduceLine(cfg.Reproduce, seed),
		Suites:          cfg.suites(),
	}
	phase := func(p string) {
		if cfg.Progress != nil {
			cfg.Progress(Event{Phase: p, Total: len(checks)})
		}
	}
	rep := &reports.Report{
		Schema:    reports.Schema,
		Seed:      seed,
		Reproduce: h.Reproduce,
		Target:    reports.Target{Name: t.Name, Kind: string(t.Kind)},
		Tool:      reports.Tool{Name: "resilcheck", Version: cmp.Or(cfg.Version, "dev"), Go: runtime.Version()},
		Started:   started.UTC(),
		Journal:   JournalFile,
	}
	res := &Result{Report: rep, Journal: journal}
	rt, err := newRunTLS(t)
	if err != nil {
		return nil, err
	}
	defer rt.close() // after the copies stopped: they were handed its bundle
	phase(PhaseStarting)
	var envs []*environment
	defer func() {
		// Copies stop side by side: each waits out its own connections
		// (eight reference copies took 3.4 s one after another).
		var wg sync.WaitGroup
		for _, env := range envs {
			wg.Go(env.close)
		}
		wg.Wait()
		for _, env := range envs {
			res.Teardown = cmp.Or(res.Teardown, env.teardown)
		}
	}()
	for i := range lanes {
		var copyOpts []faults.Option
		copyLog, copyOut := log, cfg.TargetLog
		if run != nil {
			copyOpts = []faults.Option{faults.WithMirror(run), faults.WithIDPrefix(fmt.Sprintf("c%d-", i+1))}
			copyLog = log.With("copy", i+1)
			if copyOut != nil {
				copyOut = newLinePrefixer(copyOut, fmt.Sprintf("[copy %d] ", i+1))
			}
		}
		env, err := placeTarget(ctx, t, cfg.kinds(), seed, journals[i], copyLog, copyOut, rt, copyOpts...)
		if err != nil {
			if errors.Is(err, ErrConfig) {
				return nil, err
			}
			res.abort(ctx, err)
			res.attachLogs(abortLogs(err))
			break
		}
		envs = append(envs, env)
		if i > 0 && env.target.URLs["service"] == envs[0].target.URLs["service"] {
			// The spec's address did not follow {{.Port}}: the copies would
			// be one service, sharing what a check must have alone.
			return nil, fmt.Errorf("%w: copies %d and 1 of the target answer at the same %s: give each its own port ({{.Port}})", ErrConfig, i+1, env.target.URLs["service"])
		}
	}
	if len(envs) == lanes {
		rep.Target = envs[0].target
		rep.TLS = rt.report(envs[0])
		if rt.ca != nil {
			res.CA = rt.ca.CertPEM()
		}
		phase(PhaseHealth)
		var err error
		for _, env := range envs {
			if err = waitHealthy(ctx, healthURL(env.front.URL(), env.health), frontHealthPort(env.health, env.front.URL(), cfg.Target.Service.Protocol)); err == nil {
				err = env.preflight(ctx)
			}
			if err != nil {
				break
			}
		}
		if err != nil {
			res.abort(ctx, err)
			res.attachLogs(abortLogs(err))
		} else {
			ranOn := runChecks(ctx, h, envs, run, checks, cfg, rep)
			if run != nil {
				renumberEvidence(journals, run, rep, ranOn)
			}
			var logs []launch.Log
			for i, env := range envs {
				logs = append(logs, laneLogs(i, lanes, env.failedLogs(ctx, rep))...)
			}
			res.attachLogs(logs)
		}
	}
	rep.Duration = reports.Duration(time.Since(started))
	if cfg.Baseline != nil {
		rep.CompareBaseline(cfg.Baseline, cfg.BaselineFile)
	}
	rep.ApplyGate(gate, started) // finalizes the report
	return res, nil
}

// runChecks runs checks against the healthy targets in envs, one lane per
// copy of the target, and records their results in rep in the checks'
// order, marking it interrupted when ctx ended first. It returns the lane
// each of rep.Checks ran on.
func runChecks(ctx context.Context, h *check.Harness, envs []*environment, run *faults.Journal, checks []check.Check, cfg Config, rep *reports.Report) []int {
	// A failed measure leaves the noise zero: the default slacks apply, and
	// the report says the noise was not measured.
	h.Noise, _ = check.MeasureNoise(ctx, noiseSamples)
	harnesses := make([]*check.Harness, len(envs))
	for i, env := range envs {
		lh := h.Copy()
		if len(envs) > 1 {
			lh.CopyN = i + 1 // as its logs (copy-N-…) and entries (cN-…) are named
		}
		lh.Journal = env.journal
		lh.TargetURL, lh.Front, lh.Dependency, lh.DependencyGRPC = env.front.URL(), env.front, env.dep, env.depGRPC
		lh.Client = frontClient(cfg.Target.Service.Protocol, lh.TargetURL)
		lh.Hops = env.harnessHops()
		probe, closeProbe := specProbe(cfg.Target, cfg.Target.Effects.Probe, env.target.URLs["service"], env.tls.service)
		defer closeProbe()
		lh.Probe = probe
		lh.Policy.Webhooks, closeProbe = specWebhooks(cfg.Target, env.target.URLs["service"], env.tls.service)
		defer closeProbe()
		if lh.Policy.Webhooks.Declared() {
			lh.Policy.Webhooks.Crash = env.running.CrashFunc
		}
		lh.Policy.WebhookSender = specWebhookSender(cfg.Target, env)
		lh.Policy.Queue = specQueue(cfg.Target, env)
		lh.Policy.Outbox = specOutbox(cfg.Target, env)
		harnesses[i] = lh
	}
	results := runLanes(ctx, harnesses, cfg.copies(), run, checks, progressFunc(cfg.Progress, len(checks)))
	rep.Checks = nil
	var ranOn []int
	for _, r := range results {
		if r.ran {
			rep.Checks = append(rep.Checks, r.check)
			ranOn = append(ranOn, r.lane)
		}
	}
	rep.Tolerances = harnesses[0].Tolerances()
	if len(envs) > 1 {
		rep.Tolerances = append(rep.Tolerances, reports.Tolerance{Name: "copies of the target", Value: fmt.Sprintf("%d", len(envs)),
			Why: "checks ran side by side, each on a copy of the target of its own behind proxies of its own (spec concurrency, --concurrency)"})
	}
	if ctx.Err() != nil {
		rep.Interrupted = fmt.Sprintf("stopped by a signal after %d of %d checks", len(rep.Checks), len(checks))
	}
	return ranOn
}

// noiseSamples is how many loopback round trips and 1 ms sleeps measure
// the runner's noise: about 0.1 s.
const noiseSamples = 100

// Write writes the report in formats, and the journal, into dir.
func (r *Result) Write(dir string, formats []string) error {
	if err := reports.WriteDir(dir, r.Report, formats); err != nil {
		return err
	}
	if err := reports.WriteFileAtomic(filepath.Join(dir, JournalFile), func(w io.Writer) error { return r.Journal.WriteJSONLines(w) }); err != nil {
		return fmt.Errorf("certify: journal: %w", err)
	}
	if err := r.writeCA(dir); err != nil {
		return err
	}
	return r.writeLogs(dir)
}

func selectChecks(suites []check.Suite, suiteNames, ids []string) ([]check.Check, error) {
	checks, err := check.Select(suites, suiteNames...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if len(ids) == 0 {
		return checks, nil
	}
	var out []check.Check
	for _, id := range ids {
		i := slices.IndexFunc(checks, func(c check.Check) bool { return strings.EqualFold(c.ID, id) })
		if i < 0 {
			return nil, fmt.Errorf("%w: no check %q in the selected suites", ErrConfig, id)
		}
		out = append(out, checks[i])
	}
	return out, nil
}

// startProxy starts a proxy journaled as side, forwarding to upstream and
// listening at listen (empty: a free loopback port): the front proxy and
// each hop proxy between tiers.
func startProxy(side, upstream, listen string, seed uint64, j *faults.Journal, log *slog.Logger, extra ...faults.Option) (*faults.Proxy, error) {
	u, err := url.Parse(upstream)
	if err != nil {
		return nil, fmt.Errorf("certify: %s upstream: %w", side, err)
	}
	p, err := faults.NewProxy(append([]faults.Option{faults.WithUpstream(u), faults.WithSide(side), faults.WithSeed(seed),
		faults.WithJournal(j), faults.WithLogger(log.With("proxy", side))}, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("certify: %s proxy: %w", side, err)
	}
	if _, err := p.Start(cmp.Or(listen, "127.0.0.1:0")); err != nil {
		return nil, fmt.Errorf("certify: %s proxy: %w", side, err)
	}
	return p, nil
}

func shutdown(p *faults.Proxy) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = p.Shutdown(ctx)
}

// healthURL is where certify checks the target's health: a path through the
// front proxy, or an absolute URL as the spec gives it (a separate health
// port, say), which the launcher has already waited on.
func healthURL(front, health string) string {
	if strings.Contains(health, "://") {
		return health
	}
	return front + cmp.Or(health, "/healthz")
}

// waitHealthy polls url until it answers 2xx, for at most 10 s, speaking
// proto to its port.
func waitHealthy(ctx context.Context, url string, proto targets.Protocol) error {
	err := launch.WaitHealthyOver(ctx, url, 10*time.Second, proto)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("certify: stopped while waiting for the target: %w", ctx.Err())
	}
	return fmt.Errorf("%w: %w", ErrUnhealthy, err)
}

// DrawSeed returns a random seed below 2^53, so it survives JSON readers
// that hold numbers as doubles: what a run uses when none is given.
func DrawSeed() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])&(1<<53-1) | 1
}

func reproduceLine(base string, seed uint64) string {
	if base == "" {
		base = "resilcheck certify"
	}
	return fmt.Sprintf("%s --seed %d", base, seed)
}
