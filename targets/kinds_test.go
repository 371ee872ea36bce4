package targets

import (
	"errors"
	"strings"
	"testing"
)

// stubKind is a kind given the way the reference gives its own: it
// completes the spec from what it knows and checks the name it is given.
const stubKind Kind = "stub-stack"

// withStub makes stubKind known.
var withStub = WithKinds(map[Kind]KindSpec{stubKind: {
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
}})

func TestParse_pluginKind(t *testing.T) {
	t.Parallel()
	tg, err := Parse("", []byte("kind: stub-stack\nservice: {url: http://127.0.0.1:1}\n"), withStub)
	if err != nil {
		t.Fatal(err)
	}
	if len(tg.Operations) != 1 || tg.Operations[0].Method != "POST" || tg.Effects.Ledger.KeyHeader != DefaultKeyHeader ||
		tg.Policy.Retry.MaxAttempts != 4 {
		t.Errorf("the kind's spec, defaulted: %+v", tg)
	}
}

func TestParse_pluginKindProblems(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, spec string
		opts       []Option
		want       string
	}{
		{"its own check, positioned", "kind: stub-stack\nname: forbidden\n", []Option{withStub}, "2:7: name: this stack refuses the name"},
		{"its spec is checked like a user's", "kind: stub-stack\neffects: {ledger: {dependency: nope}}\n", []Option{withStub}, `no dependency is named "nope"`},
		{"reference not given", "kind: reference\n", []Option{withStub}, "1:7: kind: kind reference needs the built-in reference stack"},
		{"compose not given", "kind: compose\n", []Option{withStub}, "1:7: kind: kind compose needs the compose launcher"},
		{"client not given", "kind: client\n", nil, "1:7: kind: kind client needs the client suite"},
		{"unknown kind lists the known", "kind: swarm\n", []Option{withStub}, "expected process, running, stub-stack"},
		{"a kind not given is unknown", "kind: stub-stack\n", nil, `1:7: kind: unknown kind "stub-stack"; expected process, running`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("", []byte(c.spec), c.opts...)
			var se *SpecError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Parse(%q) = %v; want a *SpecError containing %q", c.spec, err, c.want)
			}
		})
	}
}

// TestTarget_Defaults_kind: a kind fills in its part only when it is given.
func TestTarget_Defaults_kind(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		opts []Option
		ops  int
	}{
		{"given", []Option{withStub}, 1},
		{"not given", nil, 0},
		{"given, then replaced by a later WithKinds", []Option{withStub, WithKinds(map[Kind]KindSpec{stubKind: {}})}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tg := &Target{Kind: stubKind}
			tg.Defaults(c.opts...)
			if len(tg.Operations) != c.ops {
				t.Errorf("Defaults() left %d operations; want %d", len(tg.Operations), c.ops)
			}
		})
	}
}
