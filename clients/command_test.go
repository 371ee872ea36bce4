package clients

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func TestCommand_render(t *testing.T) {
	c := Command{Argv: []string{"curl", "{{if .Key}}-H{{end}}", "{{if .Key}}{{.KeyHeader}}: {{.Key}}{{end}}", "{{.URL}}"}}
	argv, _, err := c.render(Call{URL: "http://h/s", KeyHeader: "Idempotency-Key"})
	if err != nil || !slices.Equal(argv, []string{"curl", "http://h/s"}) {
		t.Errorf("without a key: %q, %v", argv, err)
	}
	argv, _, err = c.render(Call{URL: "http://h/s", KeyHeader: "Idempotency-Key", Key: "k1"})
	if err != nil || !slices.Equal(argv, []string{"curl", "-H", "Idempotency-Key: k1", "http://h/s"}) {
		t.Errorf("with a key: %q, %v", argv, err)
	}
	for _, bad := range []Command{{}, {Argv: []string{"{{.Nope}}"}}, {Argv: []string{"{{"}}, {Argv: []string{"{{.Body | nope}}"}}} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%q: valid", bad.Argv)
		}
	}
}

func TestCommand_Do(t *testing.T) {
	ok := Command{Argv: []string{"sh", "-c", "test {{.Method}} = GET"}}
	if err := ok.Do(context.Background(), Call{Method: "GET"}); err != nil {
		t.Errorf("exit 0: %v", err)
	}
	bad := Command{Argv: []string{"sh", "-c", "echo giving up on $WHAT; exit 22"}, Env: map[string]string{"WHAT": "{{.Scenario}}"}}
	err := bad.Do(context.Background(), Call{Scenario: "outage"})
	if err == nil || !strings.Contains(err.Error(), "exit status 22") || !strings.Contains(err.Error(), "giving up on outage") {
		t.Errorf("exit 22: %v", err)
	}
}
