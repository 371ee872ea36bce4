package target

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/internal/reference/defect"
	"github.com/resilcheck/resilcheck/targets"
)

// withKind makes kind reference known, as a program's table of kinds does.
var withKind = targets.WithKinds(launch.Kinds{targets.KindReference: Kind()}.Specs())

func TestDefaults(t *testing.T) {
	t.Parallel()
	tg, err := targets.Load("testdata/reference.yaml", withKind)
	if err != nil {
		t.Fatal(err)
	}
	op := tg.Operations[0]
	checks := []struct {
		name      string
		got, want any
	}{
		{"name", tg.Name, "reference"}, // the file's name, as for any spec
		{"store", tg.Reference.Store, "sqlite"},
		{"operation", op.Method + " " + op.Path, "POST /v1/payments"},
		{"alt body", op.AltBody, `{"amount": {{.Amount}}, "currency": "USD"}`},
		{"success", op.Success, []int{201}},
		{"dependency", tg.Dependencies, []targets.Dependency{{Name: Processor, Method: "POST", Path: "/charges"}}},
		{"ledger", tg.Effects.Ledger, targets.Ledger{Dependency: Processor, KeyHeader: "Idempotency-Key"}},
		{"tenancy", tg.Tenancy.Header, "X-Tenant-ID"},
		{"max budget", tg.Conventions.MaxBudget, 2 * time.Second},
		{"retry", tg.Policy.Retry, targets.RetryPolicy{MaxAttempts: 3, Backoff: targets.BackoffFull,
			Base: 50 * time.Millisecond, Cap: time.Second, BudgetRatio: 0.2, BreakerRecovery: 1500 * time.Millisecond}},
		{"deadline headers", len(tg.Policy.Deadlines.Headers), 4},
		{"rate limited", tg.Policy.RateLimits, targets.RateLimitPolicy{Operations: []string{"create-payment"}, Probe: "/healthz", Headers: targets.RateLimitDraft10}},
		{"idempotent", tg.Policy.Idempotency.Operations, []string{"create-payment"}},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %v; want %v", c.name, c.got, c.want)
		}
	}
	before := *tg
	tg.Defaults(withKind)
	if !reflect.DeepEqual(before, *tg) {
		t.Errorf("Defaults is not idempotent:\n%+v\n%+v", before, *tg)
	}
	if err := tg.Validate(withKind); err != nil {
		t.Errorf("the defaulted reference spec does not validate: %v", err)
	}
}

func TestDefaults_name(t *testing.T) {
	t.Parallel()
	tg, err := targets.Parse("", []byte("kind: reference\n"), withKind)
	if err != nil || tg.Name != Name {
		t.Errorf("Parse(kind: reference) = %v, name %q; want %q", err, tg.Name, Name)
	}
}

// TestDefaults_declared checks that what a spec declares wins over the
// stack's own values, section by section.
func TestDefaults_declared(t *testing.T) {
	t.Parallel()
	tg, err := targets.Parse("", []byte("kind: reference\nname: mine\nconventions: {max_budget: 5s}\npolicy: {retry: {max_attempts: 5}}\n"), withKind)
	if err != nil {
		t.Fatal(err)
	}
	if tg.Name != "mine" || tg.Conventions.MaxBudget != 5*time.Second || tg.Policy.Retry.MaxAttempts != 5 ||
		tg.Policy.Retry.Backoff != "" || len(tg.Policy.Deadlines.Headers) != 4 {
		t.Errorf("declared values lost: %+v", tg)
	}
}

// TestDefaults_concurrency: the stack starts Copies copies unless the spec
// says otherwise or the copies would share a store.
func TestDefaults_concurrency(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec string
		want int
	}{
		{"kind: reference\n", Copies},
		{"kind: reference\nconcurrency: 1\n", 1},
		{"kind: reference\nconcurrency: 3\n", 3},
		{"kind: reference\nreference: {store: sqlite}\n", Copies},
		{"kind: reference\nreference: {store: 'postgres://127.0.0.1/x'}\n", 0},
		{"kind: reference\nreference: {store: 'sqlite:/tmp/x.db'}\n", 0},
	}
	for _, tt := range tests {
		tg, err := targets.Parse("", []byte(tt.spec), withKind)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.spec, err)
			continue
		}
		if tg.Concurrency != tt.want {
			t.Errorf("Parse(%q): concurrency %d, want %d", tt.spec, tg.Concurrency, tt.want)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	_, err := targets.Load("testdata/unknown-defect.yaml", withKind)
	var se *targets.SpecError
	if !errors.As(err, &se) {
		t.Fatalf("Load = %v; want a *SpecError", err)
	}
	want := []string{
		"testdata/unknown-defect.yaml:3:31: reference.defects[1]: unknown defect racy-idempotancy; valid defects: " + validDefects(),
		`testdata/unknown-defect.yaml:4:10: reference.store: expected sqlite, sqlite:PATH or a postgres:// URL, got "mysql://u:xxxxx@localhost/db"`,
	}
	if got := se.Lines(); !slices.Equal(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, c := range []struct{ spec, want string }{
		{"kind: reference\nservice: {url: http://127.0.0.1:1}\n", "service.url: kind reference starts its own service"},
		{"kind: reference\ndependencies: [{name: bank}]\neffects: {ledger: {dependency: bank}}\n", `calls one dependency, processor; got "bank"`},
		{"kind: reference\ndependencies: [{name: processor, upstream: http://127.0.0.1:1}]\n", "starts its own processor"},
		{"kind: reference\ndependencies: [{name: processor, tls: true}]\n", "dependencies[0].tls: the reference stack calls its processor over plain http"},
		{"kind: reference\nservice: {insecure: true}\n", "service.insecure: insecure applies to an https service; the reference serves plain http"},
	} {
		if _, err := targets.Parse("", []byte(c.spec), withKind); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v; want a problem containing %q", c.spec, err, c.want)
		}
	}
}

func validDefects() string {
	var names []string
	for _, d := range defect.All() {
		names = append(names, string(d.Name))
	}
	return strings.Join(names, ", ")
}

// TestMatrix_everyDefect keeps the matrix complete: a defect no check
// catches would be a switch that proves nothing.
func TestMatrix_everyDefect(t *testing.T) {
	t.Parallel()
	m := Matrix()
	for _, d := range defect.All() {
		if len(m[d.Name].Must) == 0 {
			t.Errorf("defect %s: no check must catch it", d.Name)
		}
	}
	if len(m) != len(defect.All()) {
		t.Errorf("the matrix names %d defects; the catalog has %d", len(m), len(defect.All()))
	}
}

// TestClientMatrix_everyDefect: every defect of the reference SDK is caught
// by a client check, and the client matrix names no other.
func TestClientMatrix_everyDefect(t *testing.T) {
	t.Parallel()
	m := ClientMatrix()
	for _, d := range defect.Client() {
		if len(m[d.Name].Must) == 0 {
			t.Errorf("SDK defect %s: no check must catch it", d.Name)
		}
	}
	for d := range m {
		if _, ok := defect.LookupClient(d); !ok {
			t.Errorf("the client matrix names %s, which is no SDK defect", d)
		}
	}
}
