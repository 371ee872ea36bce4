package clients

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/faults"
)

// Side names the server's entries in the journal.
const Side = "client-server"

// Server is what the client under test calls: a stand-in fault proxy on
// loopback that answers each scenario's attempts from its script, at the
// scenario's own path, and journals every attempt.
type Server struct {
	proxy   *faults.Proxy
	journal *faults.Journal
}

// NewServer starts a server on a free loopback port, journaling into j
// (nil = a journal of its own) the key header and the default headers.
func NewServer(j *faults.Journal, keyHeader string, seed uint64) (*Server, error) {
	if j == nil {
		j = faults.NewJournal()
	}
	p, err := faults.NewProxy(faults.WithJournal(j), faults.WithSide(Side), faults.WithSeed(seed),
		faults.WithHeaders(append(faults.DefaultRequestHeaders(), keyHeader)...))
	if err != nil {
		return nil, fmt.Errorf("clients: server: %w", err)
	}
	if _, err := p.Start("127.0.0.1:0"); err != nil {
		return nil, fmt.Errorf("clients: server: %w", err)
	}
	return &Server{proxy: p, journal: j}, nil
}

// Journal returns the journal the server records into.
func (s *Server) Journal() *faults.Journal { return s.journal }

// Close stops the server, releasing stalled attempts.
func (s *Server) Close() error { return s.proxy.Close() }

// scenarioBase is the path under which every request belongs to one run of
// a scenario: a client with a base URL (an SDK) appends its own path.
func scenarioBase(id string) string { return "/scenarios/" + id }

// scenarioPaths matches every path under a run's base.
func scenarioPaths(id string) string { return scenarioBase(id) + "/*" }

// callPath is the path a call with no path of its own is given.
const callPath = "/call"

// rulePrefix names a scenario's rules: ID#1, ID#2… for the scripted
// attempts and ID#then for the rest.
func rulePrefix(id string) string { return id + "#" }

// Add installs sc's script for the run id (sc.ID, or an instance of it)
// and returns the base URL every request of the run goes under. The n-th
// attempt there gets sc's n-th step: one rule per step, each taking one
// request, and a last rule for every attempt after them.
func (s *Server) Add(sc Scenario, id string) (string, error) {
	path := scenarioPaths(id)
	for i, st := range sc.Attempts {
		r := faults.Rule{Name: fmt.Sprintf("%s%d", rulePrefix(id), i+1), Match: faults.Match{Path: path, Limit: 1}, Fault: st}
		if err := s.proxy.Rules().Add(r); err != nil {
			return "", fmt.Errorf("clients: scenario %s: %w", id, err)
		}
	}
	r := faults.Rule{Name: rulePrefix(id) + "then", Match: faults.Match{Path: path}, Fault: sc.Then}
	if err := s.proxy.Rules().Add(r); err != nil {
		return "", fmt.Errorf("clients: scenario %s: %w", id, err)
	}
	return s.proxy.URL() + scenarioBase(id), nil
}

// errCut is the cause of a call's context the harness cut at its limit.
var errCut = errors.New("clients: the harness cut the call at its limit")

// cutAfter cuts the call of run id (cut(errCut)) limit after its first
// attempt since start arrives, or limit after by when none has arrived by
// then; it returns when ctx ends. An attempt is journaled as it ends, so a
// first attempt still held at by starts the limit at by, a little later.
func (s *Server) cutAfter(ctx context.Context, id string, start, by time.Time, limit time.Duration, cut context.CancelCauseFunc) {
	wctx, cancel := context.WithDeadline(ctx, by)
	got, _ := s.journal.Await(wctx, 1, faults.BySide(Side), faults.ByPath(scenarioPaths(id)), faults.Between(start, time.Time{}))
	cancel()
	from := by
	for _, e := range got {
		if e.Received.Before(from) {
			from = e.Received
		}
	}
	t := time.NewTimer(time.Until(from.Add(limit)))
	defer t.Stop()
	select {
	case <-t.C:
		cut(errCut)
	case <-ctx.Done():
	}
}

// taken counts the attempts sc's rules have taken so far.
func (s *Server) taken(id string) int {
	n := 0
	for _, st := range s.proxy.Rules().Stats() {
		if strings.HasPrefix(st.Name, rulePrefix(id)) {
			n += int(st.Injected)
		}
	}
	return n
}

// Remove lifts sc's rules, releasing an attempt still stalled, and returns
// its attempts, oldest first, once each has been journaled (waiting up to
// 5 s for one still running).
func (s *Server) Remove(ctx context.Context, id string) []faults.Entry {
	n := s.taken(id)
	for _, r := range s.proxy.Rules().List() {
		if strings.HasPrefix(r.Name, rulePrefix(id)) {
			s.proxy.Rules().Remove(r.Name)
		}
	}
	// A copy the client left running (a hedge's loser, which a client may
	// cancel late or never) is journaled only once it ends, up to its
	// attempt timeout after the call returned: wait for it, up to 5 s.
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	got, _ := s.journal.Await(ctx, n, faults.BySide(Side), faults.ByPath(scenarioPaths(id)))
	return got
}
