// Package clients_test certifies retrying clients nobody here wrote, with
// the harness as their server, and compares every verdict with the
// expectations file beside each client, decided from its docs and code.
package clients_test

import (
	"cmp"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/clients"
	"github.com/resilcheck/resilcheck/expect"
	"github.com/resilcheck/resilcheck/reports"
)

// clientIDs lists the client suite's checks.
func clientIDs() []string {
	var ids []string
	for _, c := range clients.Suite(clients.Config{}).Checks {
		ids = append(ids, c.ID)
	}
	return ids
}

// expectations loads dir's expectations file, whose one variant is the
// client as configured here.
func expectations(t *testing.T, dir string) expect.Variant {
	t.Helper()
	f, err := expect.Load(filepath.Join(dir, expect.FileName), clientIDs())
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Variants) != 1 {
		t.Fatalf("%s: %d variants, want the one the test certifies", f.Path, len(f.Variants))
	}
	return f.Variants[0]
}

// certifyAgainst runs the client suite against c and holds every check to
// dir's expectations: no check may end otherwise (no false positive, no miss).
func certifyAgainst(t *testing.T, dir string, c clients.Client, p clients.Policy) {
	t.Helper()
	if testing.Short() {
		t.Skip("certifies a real client: waits out Retry-After and backoffs, up to 20 s")
	}
	v := expectations(t, dir)
	res, err := clients.Run(context.Background(), c, p, clients.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var noisy []string
	defer func() {
		if len(noisy) > maxNoisy {
			t.Errorf("%d checks inconclusive on a noisy runner (%v), more than the %d a busy CI runner explains", len(noisy), noisy, maxNoisy)
		}
	}()
	for _, ch := range res.Checks {
		allowed := v.Allowed(ch.ID)
		if slices.Contains(allowed, ch.Status) {
			t.Logf("%-6s %-14s %s%s", ch.ID, ch.Status, ch.Observed, ch.Reason)
			continue
		}
		if declinedInGrayZone(allowed, ch) {
			t.Logf("%-6s %-14s declined in its gray zone, where it may not fail: %s", ch.ID, ch.Status, ch.Reason)
			continue
		}
		if noisyInstead(allowed, ch) {
			noisy = append(noisy, ch.ID)
			t.Logf("%-6s %-14s %s", ch.ID, ch.Status, ch.Reason)
			continue
		}
		t.Errorf("%s %s, want %v (%s): expected %s; observed %s%s", ch.ID, ch.Status, allowed, cmp.Or(v.WhyOf(ch.ID), "must pass"), ch.Expected, ch.Observed, ch.Reason)
		for _, e := range ch.Evidence {
			t.Logf("    %s %s %s → %d %s", e.Case, e.Method, e.At, e.Status, e.Note)
		}
	}
	var took time.Duration
	for _, r := range res.Runs {
		took = max(took, r.Took())
	}
	t.Logf("longest scenario: %s", took.Round(time.Millisecond))
}

// TestExpectations_consistent holds every client's expectations file to
// the client suite's IDs.
func TestExpectations_consistent(t *testing.T) {
	paths, _ := filepath.Glob("*/" + expect.FileName)
	if len(paths) < 4 {
		t.Fatalf("%d expectations files", len(paths))
	}
	for _, p := range paths {
		expectations(t, filepath.Dir(p))
	}
}

// maxNoisy is the most checks of one client certification a noisy runner
// may leave inconclusive where they must pass: the client's processes
// share the runner's cores, and a stall can hold back what it sends.
const maxNoisy = 1

// noisyInstead says ch, which may pass, ended inconclusive because the
// runner's own lateness may have made what it saw (check.NoisyRunner):
// not a false positive, and bounded by maxNoisy.
func noisyInstead(allowed []reports.Status, ch reports.Check) bool {
	return slices.Contains(allowed, reports.StatusPass) && !slices.Contains(allowed, reports.StatusFail) &&
		ch.Status == reports.StatusInconclusive && ch.Noisy
}

// declinedInGrayZone says ch, which must fail, ended inconclusive in the
// band where CL-13 declines to judge: lockstep clients the runner's load
// and their own start-up herd spread (7.8 % seen for ky's sixteen Node.js
// processes beside another package's tests) overlap jittered ones there,
// so neither a failure nor a pass is given; or spread wide enough to pass
// only by what the runner's own delays while they waited may have added
// (ky in CI17: 10.3 %, 9.3 % without them, under the 9.9 % a pass needs).
// A pass is still a miss.
func declinedInGrayZone(allowed []reports.Status, ch reports.Check) bool {
	return slices.Equal(allowed, []reports.Status{reports.StatusFail}) && ch.Status == reports.StatusInconclusive &&
		(strings.Contains(ch.Reason, "under which it fails") || strings.Contains(ch.Reason, "a pass needs"))
}
