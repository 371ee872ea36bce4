package clients

import (
	"strings"
	"testing"

	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/targets"
)

// withKind makes kind client known, as a program's table of kinds does.
var withKind = targets.WithKinds(launch.Kinds{targets.KindClient: Kind()}.Specs())

func TestKind_validate(t *testing.T) {
	cases := map[string]struct{ spec, want string }{
		"no command":   {"kind: client\nclient: {policy: {max_attempts: 3}}\n", "client.command"},
		"bad template": {"client: {command: [curl, '{{.Nope}}']}\n", "client.command"},
		"operations":   {"client: {command: [curl]}\noperations: [{name: a, path: /a}]\n", "kind client has no operations"},
		"webhooks":     {"client: {command: [curl]}\nwebhooks: {path: /hooks, secret_env: S}\n", "kind client has no webhooks"},
		"negative":     {"client: {command: [curl], policy: {deadline: -1s}}\n", "client.policy.deadline"},
		"method":       {"client: {command: [curl], policy: {methods: ['GE T']}}\n", "client.policy.methods[0]"},
		"scenarios":    {"client: {command: [curl], scenarios: missing.yaml}\n", "client.scenarios"},
		"two kinds":    {"client: {command: [curl]}\nprocess: {command: [x]}\n", "set kind to the one you mean"},
	}
	for name, tc := range cases {
		_, err := targets.Parse(name+".yaml", []byte(tc.spec), withKind)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want a problem naming %q", name, err, tc.want)
		}
	}
}

func TestFromSpec(t *testing.T) {
	spec, err := targets.Parse("c.yaml", []byte("client:\n  command: [curl, '{{.URL}}']\n  policy: {max_attempts: 4, deadline: 12s, methods: [GET]}\n"), withKind)
	if err != nil {
		t.Fatal(err)
	}
	if spec.Kind != targets.KindClient {
		t.Errorf("kind %s, want client (inferred from the section)", spec.Kind)
	}
	c, p, ss, err := FromSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	if p.MaxAttempts != 4 || p.Deadline.Seconds() != 12 || p.keyHeader() != DefaultKeyHeader || len(ss) != len(Scenarios()) {
		t.Errorf("policy %+v, %d scenarios", p, len(ss))
	}
	if cmd := c.(Command); cmd.Argv[1] != "{{.URL}}" || cmd.Dir == "" {
		t.Errorf("command %+v", cmd)
	}
}
