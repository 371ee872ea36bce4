package properties

import (
	"flag"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// DefaultSteps is the average actions per state-machine case when
// Config.Steps is 0.
const DefaultSteps = 12

// Config bounds one property run. Zero values mean the documented defaults.
type Config struct {
	Seed   uint64 // rapid's PRNG seed; 0 means 1, so a run is always reproducible
	Checks int    // generated cases; 0 means 20
	// Steps is the average actions per state-machine case; 0 means 12, which
	// every run shares. Other steps make the run wait for every other run to
	// end and keep the next ones waiting until it ends: rapid has one
	// process-wide setting.
	Steps      int
	ShrinkTime time.Duration // time budget to minimise a failure; 0 means 10s
	// Budget, when > 0, bounds the time spent generating cases: once spent
	// (for ExploreEach's workers, once the mean case so far says the next
	// would end past it), the remaining cases pass without running, and
	// Checks is only a ceiling (0 means 1000). A failure is shrunk and
	// replayed in full.
	Budget time.Duration
	// MinCases is how many meaningful cases a pass needs; fewer make the
	// result Inconclusive. 0 means 1.
	MinCases int
	// Floor is how many cases a budgeted run draws however long they take,
	// so a slow runner explores no less than it (ExploreEach shares it among
	// its workers); 0 means none.
	Floor int

	// sideBySide says the run is one of ExploreEach's workers: no case
	// begins that would end past the budget (see budget.spent).
	sideBySide bool
}

// Result is the outcome of one property run.
type Result struct {
	Name           string
	Seed           uint64
	Failed         bool
	Message        string   // rapid's one-line failure, empty on success
	Counterexample []string // the shrunk case: draws and logs of the minimal failing run
	// Story is Counterexample without rapid's draw lines: what the property
	// logged while replaying the minimal case, one step per entry.
	Story []string
	Logs  []string // everything rapid reported, in order
	// Cases counts the cases run before the budget was spent, and
	// Meaningful those the property judged meaningful.
	Cases, Meaningful int
	// FailedCase is the 1-based number of the case that failed, skipped
	// cases counted; 0 on success, and for a panic, which rapid catches
	// before the case can be seen failing. Cases are drawn from Seed in
	// order, so Config{Seed: Seed, Checks: FailedCase} with no Budget runs
	// at least to the same failure however fast the target answers.
	FailedCase int
	// Inconclusive says the run passed on fewer than MinCases meaningful cases.
	Inconclusive bool
	// Workers is how many workers explored side by side (ExploreEach; 0
	// for Explore), and Worker the failing one whose case, seed and story
	// the result tells; WorkerName is what the caller calls it (for
	// check.Harness.ExploreEach, its copy of the target).
	Workers, Worker int
	WorkerName      string
	// Unreplayed says the shrunk case did not fail again when rapid
	// replayed it: the failure depends on timing, the target's or the
	// runner's.
	Unreplayed bool
	// Untold says the shrunk case failed when rapid shrank and checked it
	// but not when it replayed it once more to tell its story: the failure
	// held for a moment and then went, as a burst of delay makes one do.
	Untold bool
}

// rapid reads its settings from process-wide flags: the seed and the
// number of cases when a run starts, the steps of a state machine on every
// case. So a run holds settings from setting its flags until its first case
// has begun, when rapid has read them, and the steps are set once for every
// run (processSteps): runs overlap. A run that asks for other steps holds
// active exclusively, alone from start to end, and puts them back.
var (
	settings sync.Mutex
	active   sync.RWMutex
	initOnce sync.Once
	initErr  error
)

// processSteps are the average actions per state-machine case every run
// shares (Config.Steps 0); rapidShrinkTime is rapid's own bound on
// shrinking, longer than any ShrinkTime, which budget.wrap enforces per run.
const (
	processSteps    = DefaultSteps
	rapidShrinkTime = time.Hour
)

// Run checks prop with rapid under cfg and returns what it found; every
// case counts as meaningful. See Explore.
func Run(name string, cfg Config, prop func(*rapid.T)) Result {
	return Explore(name, cfg, func(t *rapid.T) bool { prop(t); return true })
}

// Explore checks prop with rapid under cfg and returns what it found; prop
// reports whether its case exercised what the property judges (a case the
// target could not be driven into is not). It blocks until rapid has
// finished, including shrinking. Runs of different properties overlap (see
// Config.Steps for the exception). The same Seed draws the same cases in
// the same order, so a failure found within the budget is found again on
// replay.
func Explore(name string, cfg Config, prop func(*rapid.T) bool) Result {
	budgeted := cfg.Budget > 0 && cfg.Checks <= 0
	cfg = cfg.withDefaults()
	alone := cfg.Steps != processSteps
	if budgeted {
		cfg.Checks = 1000
	}
	if alone {
		active.Lock()
		defer active.Unlock()
	} else {
		active.RLock()
		defer active.RUnlock()
	}
	settings.Lock()
	locked := true
	unlock := func() {
		if locked {
			locked = false
			settings.Unlock()
		}
	}
	defer unlock()
	initOnce.Do(func() {
		// rapid calls testing.Short, which panics before testing.Init.
		testing.Init()
		_ = flag.CommandLine.Parse(nil)
		initErr = setFlags(map[string]string{
			"rapid.steps":      strconv.Itoa(shortSteps(processSteps)),
			"rapid.shrinktime": rapidShrinkTime.String(),
			"rapid.nofailfile": "true", // the seed replays a failure; no files in the user's directory
		})
	})
	if initErr != nil {
		return Result{Name: name, Seed: cfg.Seed, Failed: true, Message: "properties: " + initErr.Error()}
	}
	checks := cfg.Checks
	if testing.Short() {
		// rapid divides checks by 5 (and steps by 2, see shortSteps) under
		// -short; Config is the contract, so a run explores the same under
		// any test flags.
		checks *= 5
	}
	set := map[string]string{
		"rapid.checks": strconv.Itoa(checks),
		"rapid.seed":   strconv.FormatUint(cfg.Seed, 10),
	}
	if alone {
		set["rapid.steps"] = strconv.Itoa(shortSteps(cfg.Steps))
		defer func() { _ = setFlags(map[string]string{"rapid.steps": strconv.Itoa(shortSteps(processSteps))}) }()
	}
	if err := setFlags(set); err != nil {
		return Result{Name: name, Seed: cfg.Seed, Failed: true, Message: "properties: " + err.Error()}
	}
	tb := &recorder{name: name}
	b := &budget{cfg: cfg, start: time.Now(), rec: tb, begun: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		rapid.Check(tb, b.wrap(prop))
	}()
	select { // rapid has read the seed and the cases once the first begins
	case <-b.begun:
	case <-done:
	}
	unlock()
	<-done
	res := tb.result(cfg.Seed)
	res.Cases, res.Meaningful = b.cases, b.meaningful
	if res.Failed {
		res.FailedCase = b.failedCase
	}
	if res.Failed && b.failedCase == 0 && strings.HasPrefix(res.Message, "[rapid] only generated") {
		// Every case skipped (the target could not be driven, or the
		// harness could not set a case up): rapid calls that a failure,
		// but no case failed.
		res.Failed, res.Message = false, strings.TrimPrefix(res.Message, "[rapid] ")
	}
	res.Inconclusive = !res.Failed && b.meaningful < cfg.MinCases
	return res
}

// budget cuts generation at cfg.Budget. rapid runs cases one at a time, so
// its fields need no lock.
type budget struct {
	cfg               Config
	start             time.Time
	cases, meaningful int
	// failing is set once a case failed, at failedAt: rapid then shrinks
	// and replays, and those runs are not cut by Budget, or the shrunk case
	// would pass. Shrinking is cut at ShrinkTime: rapid checks its own
	// limit only between passes, and one pass can replay a slow case
	// dozens of times. The replay that tells the story is never cut.
	failing    bool
	failedAt   time.Time
	failedCase int
	rec        *recorder
	// confirmNext says the next run confirms a failure: rapid runs a case
	// that failed again at once, and a cut confirmation would look like a
	// failure that does not reproduce.
	confirmNext bool
	// begun is closed when the first case begins.
	begun     chan struct{}
	beginOnce sync.Once
}

func (b *budget) wrap(prop func(*rapid.T) bool) func(*rapid.T) {
	return func(t *rapid.T) {
		b.beginOnce.Do(func() { close(b.begun) })
		if !b.failing && b.cfg.Budget > 0 && b.spent() {
			return
		}
		cut := b.failing && time.Since(b.failedAt) > b.cfg.ShrinkTime
		confirming := b.confirmNext
		if cut && !confirming && !b.rec.telling() {
			return // a passing candidate: the shrinker keeps what it has
		}
		defer func() {
			if t.Failed() {
				b.rec.failedTelling()
			}
			b.confirmNext = !confirming && t.Failed()
			if t.Failed() && !b.failing {
				b.failing, b.failedAt, b.failedCase = true, time.Now(), b.cases
			}
		}()
		// One call site for prop: rapid compares the failure's traceback
		// on replay.
		exploring := !b.failing
		if exploring {
			b.cases++
		}
		if prop(t) && exploring {
			b.meaningful++
		}
	}
}

// spent says the budget allows no further case: it is over, or, for a
// worker side by side with others, a case as long as the mean so far
// would end past it. Each worker beginning such a case would stretch its
// run by a case's length, and the slowest worker's sets the end; a run
// alone keeps going until the budget is over, as it always has.
func (b *budget) spent() bool {
	if b.cases < b.cfg.Floor {
		return false
	}
	took := time.Since(b.start)
	if took > b.cfg.Budget {
		return true
	}
	return b.cfg.sideBySide && b.cases > 0 && took+took/time.Duration(b.cases) > b.cfg.Budget
}

func (c Config) withDefaults() Config {
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.Checks <= 0 {
		c.Checks = 20
	}
	if c.Steps <= 0 {
		c.Steps = DefaultSteps
	}
	if c.ShrinkTime <= 0 {
		c.ShrinkTime = 10 * time.Second
	}
	if c.MinCases <= 0 {
		c.MinCases = 1
	}
	return c
}

// recorder is the rapid.TB that collects rapid's output; FailNow and SkipNow
// end the calling goroutine as testing.T does.
type recorder struct {
	name   string
	mu     sync.Mutex
	failed bool
	logs   []string
	// toldFailed says the case failed again when rapid replayed it to
	// tell its story.
	toldFailed bool
}

var _ rapid.TB = (*recorder)(nil)

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return r.name }
func (r *recorder) Logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}
func (r *recorder) Log(args ...any)                { r.Logf("%s", fmt.Sprint(args...)) }
func (r *recorder) Errorf(format string, a ...any) { r.Logf(format, a...); r.Fail() }
func (r *recorder) Error(args ...any)              { r.Log(args...); r.Fail() }
func (r *recorder) Fatalf(format string, a ...any) { r.Logf(format, a...); r.FailNow() }
func (r *recorder) Fatal(args ...any)              { r.Log(args...); r.FailNow() }
func (r *recorder) Skipf(format string, a ...any)  { r.Logf(format, a...); r.SkipNow() }
func (r *recorder) Skip(args ...any)               { r.Log(args...); r.SkipNow() }
func (r *recorder) SkipNow()                       { runtime.Goexit() }
func (r *recorder) FailNow()                       { r.Fail(); runtime.Goexit() }
func (r *recorder) Fail()                          { r.mu.Lock(); r.failed = true; r.mu.Unlock() }
func (r *recorder) Failed() bool                   { r.mu.Lock(); defer r.mu.Unlock(); return r.failed }

// telling reports whether rapid has begun its last replay, the one whose
// logs tell the minimal case: it logs "Failed test output:" just before.
func (r *recorder) telling() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tellingLocked()
}

// failedTelling records a failure of the replay that tells the minimal
// case (recorder.toldFailed), when that replay has begun.
func (r *recorder) failedTelling() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tellingLocked() {
		r.toldFailed = true
	}
}

// tellingLocked is telling, for a caller that holds r.mu.
func (r *recorder) tellingLocked() bool {
	return slices.ContainsFunc(r.logs, func(l string) bool { return strings.Contains(l, "Failed test output:") })
}

// notRetold ends a story whose telling did not fail again.
const notRetold = "(this retelling of the minimal case did not fail again: the failure above depends on timing, and its seed may need a few replays)"

// result splits rapid's output into the failure message and the replay of
// the minimal case, which rapid prints after "Failed test output:".
func (r *recorder) result(seed uint64) Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := Result{Name: r.name, Seed: seed, Failed: r.failed, Logs: append([]string(nil), r.logs...)}
	if !r.failed {
		return res
	}
	for i, l := range r.logs {
		if !strings.Contains(l, "Failed test output:") {
			continue
		}
		first, _, _ := strings.Cut(l, "\n")
		res.Message = strings.TrimPrefix(first, "[rapid] ")
		if strings.HasPrefix(res.Message, "flaky test") {
			// rapid's wording for a failure its replay did not reproduce;
			// the failure itself is in its "Original traceback (…):" line.
			res.Unreplayed = true
			res.Message = "failed, but the shrunk case did not fail again on replay: the failure depends on timing (a race)"
			if _, orig, ok := strings.Cut(l, "Original traceback ("); ok {
				if msg, _, ok := strings.Cut(orig, "):\n"); ok {
					res.Message = fmt.Sprintf("failed (%s), but the shrunk case did not fail again on replay: the failure depends on timing", msg)
				}
			}
		}
		for _, c := range r.logs[i+1:] {
			res.Counterexample = append(res.Counterexample, strings.TrimPrefix(c, "[rapid] "))
			if !strings.HasPrefix(c, "[rapid] draw ") {
				res.Story = append(res.Story, c)
			}
		}
		// rapid replays the minimal case once more to tell it, and does not
		// check that run: a case that fails on timing may not fail in it,
		// and its story would then end without the failure. Only a failure
		// rapid reproduced can be untold: a panic's story is its traceback,
		// and one rapid could not replay says so already.
		if !r.toldFailed && strings.HasPrefix(res.Message, "failed after ") && len(res.Story) > 0 {
			res.Story = append(res.Story, notRetold)
			res.Untold = true
		}
		return res
	}
	if len(r.logs) > 0 {
		res.Message = r.logs[len(r.logs)-1]
	}
	return res
}

// setFlags sets rapid's flags; callers hold settings.
func setFlags(kv map[string]string) error {
	for k, v := range kv {
		if err := flag.Set(k, v); err != nil {
			return err
		}
	}
	return nil
}

// shortSteps is the steps flag that gives n steps: rapid halves it under
// -short.
func shortSteps(n int) int {
	if testing.Short() {
		return 2 * n
	}
	return n
}
