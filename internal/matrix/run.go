package matrix

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/resilcheck/resilcheck/certify"
	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/reports"
)

// Options configure Run. The zero value of every field but Out is usable.
type Options struct {
	// Out is the directory each target's reports go into, one directory
	// per target (and per run when Runs > 1); required.
	Out string
	// Runs is how many times each target is certified; 0 means 1. With
	// two or more, a cell whose runs did not end alike is unstable.
	Runs int
	// Jobs is how many targets are certified at a time; 0 means 2, which
	// keeps 2 cores from saturating (each certification mostly waits).
	Jobs int
	// Seed is the matrix's one seed; 0 draws one.
	Seed uint64
	// Base is the certify configuration every certification starts from
	// (launchers, custom checks, version); Run sets its target, seed,
	// checks and target log.
	Base certify.Config
	// Log receives a line as each run ends; nil discards them.
	Log io.Writer
	// PrepareTimeout bounds a target's prepare.sh; 0 means 10 minutes.
	PrepareTimeout time.Duration
}

// reportFormats are the formats each run's report is written in: the
// JSON the matrix reads back and the HTML its cells link to.
var reportFormats = []string{"json", "html"}

// Run certifies every system opts.Runs times, opts.Jobs at a time, and
// returns the matrix, columns drawn from cat. A target that cannot be
// certified (its prepare script fails, it never becomes healthy, its run
// is interrupted, resilcheck panics on it) gets a row saying why, and so
// does one the matrix never reached; Run's error says a context ended,
// and the matrix so far is returned with it.
func Run(ctx context.Context, systems []System, cat Catalogue, opts Options) (*Matrix, error) {
	if opts.Out == "" {
		return nil, errors.New("matrix: no output directory")
	}
	runs := max(opts.Runs, 1)
	jobs := opts.Jobs
	if jobs < 1 {
		jobs = 2
	}
	seed := opts.Seed
	if seed == 0 {
		seed = certify.DrawSeed()
	}
	m := &Matrix{Seed: seed, Runs: runs, Started: time.Now(), Version: opts.Base.Version, Columns: columns(systems, cat)}
	m.Rows = make([]Row, len(systems))
	for i, s := range systems {
		m.Rows[i] = s.row()
		m.Rows[i].Error = "not certified: the matrix was stopped before it"
	}
	log := &lockedWriter{w: cmp.Or[io.Writer](opts.Log, io.Discard)}
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(jobs, max(len(systems), 1)) {
		wg.Go(func() {
			for i := range work {
				m.Rows[i] = safeRow(ctx, systems[i], seed, runs, opts, log)
			}
		})
	}
send:
	for i := range systems {
		select {
		case work <- i:
		case <-ctx.Done():
			break send
		}
	}
	close(work)
	wg.Wait()
	m.Took = reports.Duration(time.Since(m.Started))
	if err := ctx.Err(); err != nil {
		return m, fmt.Errorf("matrix: stopped: %w", err)
	}
	return m, nil
}

// safeRow is certifyRow, with a panic turned into the row's error: one
// target's bug in resilcheck must not lose every other row.
func safeRow(ctx context.Context, s System, seed uint64, runs int, opts Options, log io.Writer) (row Row) {
	defer func() {
		if p := recover(); p != nil {
			row = s.row()
			row.Error = fmt.Sprintf("internal error in resilcheck: %v", p)
			fmt.Fprintf(log, "%s: %s\n", s.Name, row.Error)
		}
	}()
	return certifyRow(ctx, s, seed, runs, opts, log)
}

// row is s's row before any run.
func (s System) row() Row {
	return Row{Name: s.Name, Dir: filepath.ToSlash(s.Dir), Kind: string(s.Spec.Kind), Versions: s.Want.Versions, Cells: map[string]Cell{}}
}

// TargetSeed is the seed run (from 1) of the target named name draws from
// in a matrix seeded with seed: each target and run has its own, and the
// matrix's seed replays them all.
func TargetSeed(seed uint64, name string, run int) uint64 {
	h := fnv.New64a()
	_ = binary.Write(h, binary.BigEndian, seed)
	_, _ = io.WriteString(h, name)
	_ = binary.Write(h, binary.BigEndian, int64(run))
	return h.Sum64()&(1<<53-1) | 1 // below 2^53, as drawSeed
}

// seed is the seed run (from 1) of s draws from in a matrix seeded with
// seed: the one its expectations were decided at, else its own
// (TargetSeed). A pinned seed leaves its runs differing by timing alone.
func (s System) seed(seed uint64, run int) uint64 {
	if s.Want.Seed != 0 {
		return s.Want.Seed
	}
	return TargetSeed(seed, s.Name, run)
}

// certifyRow prepares s, certifies it runs times and judges its cells.
func certifyRow(ctx context.Context, s System, seed uint64, runs int, opts Options, log io.Writer) Row {
	row := s.row()
	dir := filepath.Join(opts.Out, s.Slug())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		row.Error = err.Error()
		fmt.Fprintf(log, "%s: %v\n", s.Name, err)
		return row
	}
	if err := prepare(ctx, s, dir, cmp.Or(opts.PrepareTimeout, 10*time.Minute)); err != nil {
		row.Error = err.Error()
		fmt.Fprintf(log, "%s: %v\n", s.Name, err)
		return row
	}
	var reps []*reports.Report
	for run := 1; run <= runs && ctx.Err() == nil; run++ {
		rel := s.Slug()
		if runs > 1 {
			rel = path.Join(s.Slug(), fmt.Sprintf("run-%d", run))
		}
		rep, err := certifyOnce(ctx, s, s.seed(seed, run), filepath.Join(opts.Out, filepath.FromSlash(rel)), opts.Base)
		if err != nil {
			row.Error = fmt.Sprintf("run %d: %v", run, err)
			fmt.Fprintf(log, "%s run %d of %d: %v\n", s.Name, run, runs, err)
			return row
		}
		row.Reports, row.Seeds = append(row.Reports, rel), append(row.Seeds, rep.Seed)
		reps = append(reps, rep)
		fmt.Fprintf(log, "%s run %d of %d: %s (seed %d, %s)\n", s.Name, run, runs, tally(rep), rep.Seed, time.Duration(rep.Duration).Round(100*time.Millisecond))
	}
	if len(reps) < runs {
		row.Error = "stopped before its runs ended"
		return row
	}
	for _, id := range s.IDs {
		row.Cells[id] = judge(s, id, reps, row.Reports)
	}
	return row
}

// certifyOnce certifies s once with seed and writes its report into dir.
// An error is a run that judged no check.
func certifyOnce(ctx context.Context, s System, seed uint64, dir string, base certify.Config) (*reports.Report, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "target.log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cfg := base
	cfg.Target, cfg.Seed, cfg.Checks, cfg.TargetLog = s.Spec, seed, s.Want.Run, logf
	res, err := certify.Run(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("certifying: %w", err)
	}
	if err := res.Write(dir, reportFormats); err != nil {
		return nil, fmt.Errorf("writing its report: %w", err)
	}
	switch {
	case res.Report.Interrupted != "":
		return nil, fmt.Errorf("interrupted: %s (a partial report: %s)", res.Report.Interrupted, dir)
	case len(res.Report.Checks) == 0:
		return nil, fmt.Errorf("no check ran: %w (the target's log: %s)", res.Err(), filepath.Join(dir, "target.log"))
	}
	return res.Report, nil
}

// judge makes the cell of check id from every run's report (reports[i]
// in the directory rels[i]). Its verdict, tier, observation and link are
// the first run's, or, where a run disagrees with the expectations, the
// first such run's: the evidence a reader must see.
func judge(s System, id string, reps []*reports.Report, rels []string) Cell {
	w := s.Want.Want(id)
	c := Cell{Expected: w.Allowed, Why: w.Why, Agrees: true}
	shown := -1
	var tiers []string
	for i, rep := range reps {
		var got reports.Check
		j := slices.IndexFunc(rep.Checks, func(ch reports.Check) bool { return ch.ID == id })
		if j >= 0 {
			got = rep.Checks[j]
		} else {
			got.Observed = "not in the report"
		}
		c.Runs, tiers = append(c.Runs, got.Status), append(tiers, got.Tier)
		agrees := j >= 0 && w.Agrees(got.Status, got.Tier)
		if shown < 0 || (!agrees && c.Agrees) {
			shown = i
			c.Status, c.Tier, c.Observed = got.Status, got.Tier, cmp.Or(got.Observed, got.Reason)
			c.Link = href(rels[i]) + "/report.html#" + reports.CheckAnchor(id)
		}
		c.Agrees = c.Agrees && agrees
	}
	for i := range c.Runs {
		if c.Runs[i] != c.Runs[0] || tiers[i] != tiers[0] {
			c.Unstable = true
		}
	}
	return c
}

// prepare runs s's prepare.sh, when it has one, with its output in dir;
// at the timeout the script and everything it started are killed.
func prepare(ctx context.Context, s System, dir string, timeout time.Duration) error {
	script := filepath.Join(s.Dir, PrepareFile)
	if _, err := os.Stat(script); err != nil {
		return nil
	}
	out, err := os.Create(filepath.Join(dir, "prepare.log"))
	if err != nil {
		return err
	}
	defer out.Close()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", PrepareFile)
	cmd.Dir, cmd.Stdout, cmd.Stderr = s.Dir, out, out
	cmd.WaitDelay = 5 * time.Second
	if err := launch.RunInGroup(cmd); err != nil {
		return fmt.Errorf("%s failed: %w (its output: %s)", PrepareFile, err, out.Name())
	}
	return nil
}

// tally is a run's verdict counts, for the log.
func tally(rep *reports.Report) string {
	n := map[reports.Status]int{}
	for _, c := range rep.Checks {
		n[c.Status]++
	}
	return fmt.Sprintf("%d pass, %d fail, %d inconclusive, %d not applicable",
		n[reports.StatusPass], n[reports.StatusFail], n[reports.StatusInconclusive], n[reports.StatusNotApplicable])
}

// lockedWriter serializes whole writes from the workers.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
