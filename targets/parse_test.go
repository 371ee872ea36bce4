package targets

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/bad/*.golden")

// TestLoad_golden checks the exact problems reported for each malformed spec
// in testdata/bad against testdata/bad/NAME.golden.
func TestLoad_golden(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/bad/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			_, err := Load(file, testChecks)
			var se *SpecError
			if !errors.As(err, &se) {
				t.Fatalf("Load(%s) = %v; want a *SpecError", file, err)
			}
			got := strings.Join(se.Lines(), "\n") + "\n"
			golden := strings.TrimSuffix(file, ".yaml") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./targets -run TestLoad_golden -update)", err)
			}
			if got != string(want) {
				t.Errorf("Load(%s) problems:\n%s\nwant:\n%s", file, got, want)
			}
		})
	}
}

func TestLoad_good(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/good/*.yaml")
	for _, file := range append(files, "init.yaml") {
		if _, err := Load(file, testChecks); err != nil {
			t.Errorf("Load(%s) = %v", file, err)
		}
	}
}

func TestParse_defaults(t *testing.T) {
	t.Parallel()
	tg, err := Load("testdata/good/process.yaml")
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("testdata/good")
	checks := []struct {
		name      string
		got, want any
	}{
		{"kind", tg.Kind, KindProcess},
		{"version", tg.Version, 1},
		{"url", tg.Service.URL, DefaultProcessURL},
		{"health", tg.Service.Health, "/healthz"},
		{"startup", tg.Service.StartupTimeout, 30 * time.Second},
		{"dir", tg.Process.Dir, abs},
		{"grace", tg.Process.StopGrace, 5 * time.Second},
		{"method", tg.Operations[0].Method, "POST"},
		{"key header", tg.Operations[0].KeyHeader, "Idempotency-Key"},
		{"content type", tg.Operations[0].ContentType, "application/json"},
		{"ledger key", tg.Effects.Ledger.KeyHeader, "Idempotency-Key"},
		{"probe method", tg.Effects.Probe.Method, "GET"},
		{"tenancy disabled", tg.Tenancy.Disabled, true},
		{"tenancy header", tg.Tenancy.Header, ""},
		{"profile", tg.Conventions.Profile, ProfileStripe},
		{"key format", tg.Conventions.KeyFormat, KeyToken},
		{"deadline canonical", tg.Conventions.DeadlineHeader, DeadlineGRPCTimeout},
		{"ttl", tg.Conventions.KeyTTL, 24 * time.Hour},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %v; want %v", c.name, c.got, c.want)
		}
	}
	before := *tg
	tg.Defaults()
	if !reflect.DeepEqual(before, *tg) {
		t.Errorf("Defaults is not idempotent:\n%+v\n%+v", before, *tg)
	}
}

func TestTarget_Validate_builtInGo(t *testing.T) {
	t.Parallel()
	tg := &Target{Service: Service{URL: "nope"}}
	err := tg.Validate()
	var se *SpecError
	if !errors.As(err, &se) {
		t.Fatalf("Validate() = %v; want *SpecError", err)
	}
	want := "targets: spec: 3 problems:\n\tservice.url: expected an http:// or https:// URL, got \"nope\"\n\t" +
		"operations: at least one operation is required, e.g. {name: create-payment, path: /v1/payments, body: '{\"amount\": {{.Amount}}}'}; " +
		"a queue consumer or webhook receiver alone (queue_consumer, webhooks) needs none\n\t" +
		"effects: declare how side effects are counted: ledger: {dependency: NAME} and/or probe: {url: ...}"
	if err.Error() != want {
		t.Errorf("Validate() =\n%v\nwant\n%s", err, want)
	}
}

func TestLoad_missingFile(t *testing.T) {
	t.Parallel()
	_, err := Load("testdata/does-not-exist.yaml")
	var se *SpecError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "testdata/does-not-exist.yaml: cannot read: no such file or directory") {
		t.Errorf("Load(missing) = %v", err)
	}
}

func TestParse_aliasBomb(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	_, err := Parse("bomb.yaml", []byte(b.String()))
	if err == nil {
		t.Fatal("Parse(alias bomb) succeeded")
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/*.yaml")
	for _, file := range files {
		data, _ := os.ReadFile(file)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tg, err := Parse("fuzz.yaml", data)
		if err == nil {
			if err := tg.Validate(); err != nil {
				t.Errorf("a parsed target does not validate again: %v", err)
			}
			return
		}
		var se *SpecError
		if !errors.As(err, &se) || len(se.Problems) == 0 {
			t.Errorf("Parse error %v is not a *SpecError with problems", err)
		}
	})
}
