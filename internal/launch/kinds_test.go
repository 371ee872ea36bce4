package launch

import (
	"strings"
	"testing"

	"github.com/resilcheck/resilcheck/targets"
)

func TestKinds_NewLauncher(t *testing.T) {
	t.Parallel()
	kinds := Kinds{targets.KindRunning: RunningKind(), targets.KindProcess: ProcessKind(), "no-launcher": {}}
	cases := []struct {
		kind targets.Kind
		want string // the error; empty = a launcher
	}{
		{targets.KindRunning, ""},
		{targets.KindProcess, ""},
		{targets.KindCompose, `targets: no launcher registered for kind "compose"`},
		{"no-launcher", `targets: no launcher registered for kind "no-launcher"`},
	}
	for _, c := range cases {
		l, err := kinds.NewLauncher(&targets.Target{Kind: c.kind})
		switch {
		case c.want == "" && (err != nil || l == nil):
			t.Errorf("NewLauncher(kind %q) = %v, %v; want a launcher", c.kind, l, err)
		case c.want != "" && (err == nil || err.Error() != c.want):
			t.Errorf("NewLauncher(kind %q) = %v; want %q", c.kind, err, c.want)
		}
	}
}

// TestKinds_Specs: the spec side of a table is what targets reads specs
// with, so a kind in the table is known to Parse, with its own checks.
func TestKinds_Specs(t *testing.T) {
	t.Parallel()
	kinds := Kinds{"stub-stack": {
		Spec: targets.KindSpec{Validate: func(*targets.Target) []targets.Problem {
			return []targets.Problem{{Path: "name", Msg: "this stack refuses every name"}}
		}},
		Launcher: RunningKind().Launcher,
	}}
	_, err := targets.Parse("", []byte("kind: stub-stack\nname: x\n"), targets.WithKinds(kinds.Specs()))
	if want := "2:7: name: this stack refuses every name"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Parse(kind stub-stack) = %v; want a problem %q", err, want)
	}
}
