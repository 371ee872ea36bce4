package targets

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// stubKind is a kind registered the way the reference registers its own: it
// completes the spec from what it knows and checks the name it is given.
const stubKind Kind = "stub-stack"

func init() {
	RegisterKind(stubKind, Plugin{
		Launcher: func(t *Target) (Launcher, error) { return &RunningLauncher{Target: t}, nil },
		Defaults: func(t *Target) {
			if len(t.Operations) == 0 {
				t.Operations = []Operation{{Name: "op", Path: "/op", Body: `{"n": {{.Amount}}}`}}
			}
			if len(t.Dependencies) == 0 {
				t.Dependencies = []Dependency{{Name: "dep", Path: "/x"}}
			}
			if isZero(t.Effects) {
				t.Effects.Ledger.Dependency = "dep"
			}
			if t.Policy.Retry.MaxAttempts == 0 {
				t.Policy.Retry.MaxAttempts = 4
			}
		},
		Validate: func(t *Target) []Problem {
			if t.Name == "forbidden" {
				return []Problem{{Path: "name", Msg: "this stack refuses the name"}}
			}
			return nil
		},
	})
}

func TestParse_pluginKind(t *testing.T) {
	t.Parallel()
	tg, err := Parse("", []byte("kind: stub-stack\nservice: {url: http://127.0.0.1:1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tg.Operations) != 1 || tg.Operations[0].Method != "POST" || tg.Effects.Ledger.KeyHeader != DefaultKeyHeader ||
		tg.Policy.Retry.MaxAttempts != 4 {
		t.Errorf("the kind's spec, defaulted: %+v", tg)
	}
	if l, err := NewLauncher(tg); err != nil || l == nil {
		t.Errorf("NewLauncher = %v, %v", l, err)
	}
}

func TestParse_pluginKindProblems(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, spec, want string
	}{
		{"its own check, positioned", "kind: stub-stack\nname: forbidden\n", "2:7: name: this stack refuses the name"},
		{"its spec is checked like a user's", "kind: stub-stack\neffects: {ledger: {dependency: nope}}\n", `no dependency is named "nope"`},
		{"reference left out of the build", "kind: reference\n", "1:7: kind: kind reference needs the built-in reference stack"},
		{"compose left out of the build", "kind: compose\n", "1:7: kind: kind compose needs the compose launcher"},
		{"unknown kind lists the registered", "kind: swarm\n", "expected process, running, stub-stack"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("", []byte(c.spec))
			var se *SpecError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Parse(%q) = %v; want a *SpecError containing %q", c.spec, err, c.want)
			}
		})
	}
}

func TestRunning_Stop(t *testing.T) {
	t.Parallel()
	calls := 0
	r := &Running{StopFunc: func(context.Context) error { calls++; return errors.New("gone") }}
	for range 2 {
		if err := r.Stop(t.Context()); err == nil || err.Error() != "gone" {
			t.Errorf("Stop() = %v; want the first call's error", err)
		}
	}
	if calls != 1 {
		t.Errorf("StopFunc ran %d times; want 1", calls)
	}
}
