package certify

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// TestRun_splitReferenceExample certifies examples/split-reference, a
// process target (the reference split into a gateway and a service process,
// two tiers with the hop proxy between them, with the stand-in as
// processor): green as shipped, and red with a defect switched on, which
// proves the stand-in ledger counts effects and the hop between the
// processes fails connections and names the tier that re-sent a POST.
func TestRun_splitReferenceExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds resilcheck and starts processes")
	}
	bin := filepath.Join(t.TempDir(), "resilcheck")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/resilcheck").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Setenv("RESILCHECK", bin)
	spec, err := targets.Load("../examples/split-reference/target.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		defect string
		fail   []string
		tier   string // every failure's
	}{
		{"", nil, ""},
		{"no-downstream-key", []string{"IK-17b"}, "service"},
		{"gateway-resend-on-reset", []string{"HS-14"}, "gateway"},
	} {
		t.Run("defect="+c.defect, func(t *testing.T) {
			t.Setenv("REFERENCE_DEFECT", c.defect)
			cfg := Config{Target: spec, Suites: []string{"idempotency"}, Seed: 3}
			if c.defect == "gateway-resend-on-reset" {
				cfg = Config{Target: spec, Checks: []string{"HS-14", "IK-03"}, Seed: 3}
			}
			res, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			// A run whose target never became healthy (a free port another
			// process took before the target bound it, say) returns no error
			// and a report with no checks, which the comparison below would
			// read as every check passing.
			if rep := res.Report; rep.Aborted != "" || rep.Interrupted != "" || len(rep.Checks) == 0 {
				t.Fatalf("the run judged no check (verdict %s): %v", rep.Verdict, res.Err())
			}
			var failed []string
			for _, ch := range res.Report.Checks {
				if ch.Status != reports.StatusPass {
					failed = append(failed, ch.ID)
				}
				if ch.Status == reports.StatusFail && ch.Tier != c.tier {
					t.Errorf("%s laid at tier %q; want %q: %s", ch.ID, ch.Tier, c.tier, ch.Observed)
				}
			}
			if !slices.Equal(failed, c.fail) {
				t.Errorf("checks not passing = %v; want %v", failed, c.fail)
			}
		})
	}
}
