package properties

import (
	"flag"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// Config bounds one property run. Zero values mean the documented defaults.
type Config struct {
	Seed       uint64        // rapid's PRNG seed; 0 means 1, so a run is always reproducible
	Checks     int           // generated cases; 0 means 20
	Steps      int           // average actions per state-machine case; 0 means 12
	ShrinkTime time.Duration // time budget to minimise a failure; 0 means 10s
}

// Result is the outcome of one property run.
type Result struct {
	Name           string
	Seed           uint64
	Failed         bool
	Message        string   // rapid's one-line failure, empty on success
	Counterexample []string // the shrunk case: draws and logs of the minimal failing run
	Logs           []string // everything rapid reported, in order
}

// rapid reads its settings from flag.CommandLine, so runs are serialised.
var (
	mu       sync.Mutex
	initOnce sync.Once
)

// Run checks prop with rapid under cfg and returns what it found. It blocks
// until rapid has finished, including shrinking; runs are serialised because
// rapid's settings are process-wide.
func Run(name string, cfg Config, prop func(*rapid.T)) Result {
	cfg = cfg.withDefaults()
	mu.Lock()
	defer mu.Unlock()
	initOnce.Do(func() {
		// rapid calls testing.Short, which panics before testing.Init.
		testing.Init()
		_ = flag.CommandLine.Parse(nil)
	})
	checks, steps := cfg.Checks, cfg.Steps
	if testing.Short() {
		// rapid divides checks by 5 and steps by 2 under -short; Config is
		// the contract, so a run explores the same under any test flags.
		checks, steps = checks*5, steps*2
	}
	for k, v := range map[string]string{
		"rapid.checks":     strconv.Itoa(checks),
		"rapid.steps":      strconv.Itoa(steps),
		"rapid.seed":       strconv.FormatUint(cfg.Seed, 10),
		"rapid.shrinktime": cfg.ShrinkTime.String(),
		"rapid.nofailfile": "true", // the seed replays a failure; no files in the user's directory
	} {
		if err := flag.Set(k, v); err != nil {
			return Result{Name: name, Seed: cfg.Seed, Failed: true, Message: "properties: " + err.Error()}
		}
	}
	tb := &recorder{name: name}
	done := make(chan struct{})
	go func() {
		defer close(done)
		rapid.Check(tb, prop)
	}()
	<-done
	return tb.result(cfg.Seed)
}

func (c Config) withDefaults() Config {
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.Checks <= 0 {
		c.Checks = 20
	}
	if c.Steps <= 0 {
		c.Steps = 12
	}
	if c.ShrinkTime <= 0 {
		c.ShrinkTime = 10 * time.Second
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
			// rapid's wording for a failure its replay did not reproduce.
			res.Message = "failed, but the shrunk case did not fail again on replay: the failure depends on timing (a race)"
		}
		for _, c := range r.logs[i+1:] {
			res.Counterexample = append(res.Counterexample, strings.TrimPrefix(c, "[rapid] "))
		}
		return res
	}
	if len(r.logs) > 0 {
		res.Message = r.logs[len(r.logs)-1]
	}
	return res
}
