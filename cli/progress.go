package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"golang.org/x/term"

	"github.com/resilcheck/resilcheck/certify"
	"github.com/resilcheck/resilcheck/reports"
)

// redrawEvery is how often the live line's clocks move.
const redrawEvery = 200 * time.Millisecond

// progressView shows a certification's progress on stderr. On a terminal it
// keeps one live line, redrawn in place (check n of N, the check running,
// the time spent, the verdict so far), and prints a line of its own only for
// a check that did not pass; elsewhere (a pipe, a CI log) it prints one plain
// line per phase and per finished check. Colour goes through colorprofile,
// so NO_COLOR, TERM=dumb and non-terminals get none.
type progressView struct {
	mu    sync.Mutex
	out   io.Writer
	live  bool
	width func() int
	now   func() time.Time
	start time.Time
	st    progressState
	// running are the checks started and not finished: several when the
	// run has copies of the target side by side.
	running []runningCheck
	drawn   bool // the live line is on screen
	shut    bool // Close was called: the console owns the terminal now
	stop    chan struct{}
	done    chan struct{}
}

// runningCheck is a check the live line may show.
type runningCheck struct {
	id, title string
	start     time.Time
}

// progressState is what the live line shows.
type progressState struct {
	total, done int
	phase       string // set until the first check starts
	id, title   string // the check running
	checkStart  time.Time
	counts      map[reports.Status]int
}

// newProgressView returns the view for w. It is live when w is a terminal
// and nothing else (such as --verbose logs) writes to it meanwhile.
func newProgressView(w io.Writer, allowLive bool) *progressView {
	v := &progressView{
		out:   &colorprofile.Writer{Forward: w, Profile: colorprofile.Detect(w, os.Environ())},
		width: func() int { return 80 },
		now:   time.Now,
		st:    progressState{counts: map[reports.Status]int{}},
	}
	v.start = v.now()
	if f, ok := w.(*os.File); ok && allowLive && term.IsTerminal(int(f.Fd())) {
		v.goLive(func() int {
			if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
				return cols
			}
			return 80
		})
	}
	return v
}

// goLive switches v to the live line, width telling the terminal's columns,
// and starts its clock.
func (v *progressView) goLive(width func() int) {
	v.live, v.width = true, width
	v.stop, v.done = make(chan struct{}), make(chan struct{})
	go v.tick()
}

// Event takes one event of the run; it is certify.Config.Progress.
func (v *progressView) Event(ev certify.Event) {
	v.mu.Lock()
	defer v.mu.Unlock()
	now := v.now()
	switch {
	case ev.Phase != "":
		v.st.total, v.st.phase = ev.Total, ev.Phase
		if !v.live {
			fmt.Fprintln(v.out, plainPhase(ev))
		}
	case !ev.Finished:
		v.st.total, v.st.phase = ev.Total, ""
		v.running = append(v.running, runningCheck{ev.Check.ID, ev.Check.Title, now})
		v.showRunning()
	default:
		v.st.done = ev.Done
		v.st.counts[ev.Result.Status]++
		v.st.phase = "" // a client run's checks finish after its phase
		v.running = slices.DeleteFunc(v.running, func(r runningCheck) bool { return r.id == ev.Check.ID })
		v.showRunning()
		if !v.live {
			fmt.Fprintln(v.out, plainLine(ev))
		} else if ev.Result.Status != reports.StatusPass {
			v.clear()
			fmt.Fprintln(v.out, plainLine(ev))
		}
	}
	if v.live {
		v.draw(now)
	}
}

// showRunning puts the latest check still running on the live line, saying
// how many others run beside it; none once all have finished.
func (v *progressView) showRunning() {
	v.st.id, v.st.title = "", ""
	if n := len(v.running); n > 0 {
		r := v.running[n-1]
		v.st.id, v.st.title, v.st.checkStart = r.id, r.title, r.start
		if n > 1 {
			v.st.title += fmt.Sprintf(" (and %d beside it)", n-1)
		}
	}
}

// Stopping says the run is winding down after a signal, in place of the
// check it interrupted.
func (v *progressView) Stopping() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.st.id, v.st.phase = "", "stopping: writing the partial report"
	if v.live {
		v.draw(v.now())
	}
}

// Close stops the clock and removes the live line, before the report is
// printed where it stood. A nil view (--quiet) does nothing.
func (v *progressView) Close() {
	if v == nil || !v.live {
		return
	}
	close(v.stop)
	<-v.done
	v.mu.Lock()
	defer v.mu.Unlock()
	v.clear()
	v.shut = true
}

func (v *progressView) tick() {
	defer close(v.done)
	t := time.NewTicker(redrawEvery)
	defer t.Stop()
	for {
		select {
		case <-v.stop:
			return
		case <-t.C:
			v.mu.Lock()
			v.draw(v.now())
			v.mu.Unlock()
		}
	}
}

// draw rewrites the live line in place; the caller holds mu.
func (v *progressView) draw(now time.Time) {
	if v.shut {
		return
	}
	fmt.Fprint(v.out, "\r"+liveLine(v.st, now.Sub(v.start), now.Sub(v.st.checkStart), v.width()-1)+ansi.EraseLineRight)
	v.drawn = true
}

// clear erases the live line; the caller holds mu.
func (v *progressView) clear() {
	if v.drawn {
		fmt.Fprint(v.out, "\r"+ansi.EraseLineRight)
		v.drawn = false
	}
}

// freshLine is what starts a notice on f at the beginning of a clean line:
// on a terminal the live line may stand there, unfinished.
func freshLine(f *os.File) string {
	if term.IsTerminal(int(f.Fd())) {
		return "\r" + ansi.EraseLineRight
	}
	return ""
}

// plainPhase is a phase as a line of its own: "[ 0/55] starting the target".
func plainPhase(ev certify.Event) string {
	return fmt.Sprintf("%s %s", counter(0, ev.Total), ev.Phase)
}

// plainLine is a finished check as a line of its own:
// "[ 3/55] fail            IK-07   title (1.2s)".
func plainLine(ev certify.Event) string {
	took := time.Duration(ev.Result.Duration).Round(time.Millisecond)
	return fmt.Sprintf("%s %s %-7s %s (%s)", counter(ev.Done, ev.Total), statusWord(ev.Result.Status, 14), ev.Check.ID, ev.Check.Title, took)
}

// liveLine is the live line, at most width cells: the counter, the run's
// time, the verdict so far, then the check running and its time, its title
// cut to fit.
func liveLine(st progressState, elapsed, checkElapsed time.Duration, width int) string {
	head := fmt.Sprintf("%s %s %s", counter(st.done, st.total), clock(elapsed), soFar(st.counts))
	switch {
	case st.id != "":
		head += fmt.Sprintf(" · %s %s %s", ansi.NewStyle().Bold().Styled(st.id), clock(checkElapsed), st.title)
	case st.phase != "":
		head += " · " + st.phase
	}
	return ansi.Truncate(head, max(width, 20), "…")
}

// soFar is the verdict the finished checks give, with the counts behind it:
// "FAIL so far (1 fail, 2 pass)".
func soFar(counts map[reports.Status]int) string {
	order := []reports.Status{reports.StatusFail, reports.StatusInconclusive, reports.StatusNotApplicable, reports.StatusPass}
	var parts []string
	verdict := reports.VerdictPass
	for _, s := range order {
		if counts[s] == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%d %s", counts[s], statusWord(s, 0)))
		switch {
		case s == reports.StatusFail:
			verdict = reports.VerdictFail
		case s == reports.StatusInconclusive && verdict == reports.VerdictPass:
			verdict = reports.VerdictInconclusive
		}
	}
	if len(parts) == 0 {
		return "no verdict yet"
	}
	return fmt.Sprintf("%s so far (%s)", verdictStyle(verdict).Styled(strings.ToUpper(string(verdict))), strings.Join(parts, ", "))
}

// counter is "[ 3/55]", padded so the line does not shift as n grows.
func counter(n, total int) string {
	w := len(fmt.Sprint(total))
	return fmt.Sprintf("[%*d/%d]", w, n, total)
}

// clock renders a duration the way a stopwatch does: 4.2s, 1m05s.
func clock(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

// statusWord is the status's word (the same in every report format),
// coloured, padded to pad cells.
func statusWord(s reports.Status, pad int) string {
	word := s.Word()
	return statusStyle(s).Styled(word) + strings.Repeat(" ", max(pad-len(word), 0))
}

func statusStyle(s reports.Status) ansi.Style {
	switch s {
	case reports.StatusPass:
		return ansi.NewStyle().ForegroundColor(ansi.Green)
	case reports.StatusFail:
		return ansi.NewStyle().Bold().ForegroundColor(ansi.Red)
	case reports.StatusInconclusive:
		return ansi.NewStyle().ForegroundColor(ansi.Yellow)
	}
	return ansi.NewStyle().Faint()
}

func verdictStyle(v reports.Verdict) ansi.Style {
	return statusStyle(reports.Status(v)).Bold()
}
