package clients

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"text/template"
	"time"
)

// Command is a client run as a process, once per call: each argument and
// environment value is a text/template over the Call ({{.URL}},
// {{.Method}}, {{.Key}}, {{.KeyHeader}}, {{.Body}}, {{.Scenario}}), an
// argument that renders empty is left out (so `{{if .Key}}-H{{end}}` drops a
// flag), and exit status 0 reports success. On Unix each call runs in a
// process group of its own, killed whole when the harness cuts the call.
type Command struct {
	Argv []string          // required; Argv[0] is looked up in PATH
	Env  map[string]string // added to resilcheck's own environment
	Dir  string            // working directory; empty = the current one
}

// Validate parses every template and renders it with a sample call.
func (c Command) Validate() error {
	if len(c.Argv) == 0 {
		return errors.New("clients: command: no argv")
	}
	_, _, err := c.render(Call{Scenario: "sample", URL: "http://127.0.0.1:1/scenarios/sample", Method: "POST", Key: "k", KeyHeader: DefaultKeyHeader, Body: "{}"})
	return err
}

func (c Command) render(call Call) (argv, env []string, err error) {
	// expand renders one template; not named exec, which is the package here.
	expand := func(what, text string) (string, error) {
		t, err := template.New(what).Option("missingkey=error").Parse(text)
		if err != nil {
			return "", fmt.Errorf("clients: command %s: %w", what, err)
		}
		var b strings.Builder
		if err := t.Execute(&b, call); err != nil {
			return "", fmt.Errorf("clients: command %s: %w", what, err)
		}
		return b.String(), nil
	}
	for i, a := range c.Argv {
		s, err := expand(fmt.Sprintf("argv[%d]", i), a)
		if err != nil {
			return nil, nil, err
		}
		if s != "" {
			argv = append(argv, s)
		}
	}
	for k, v := range c.Env {
		s, err := expand("env "+k, v)
		if err != nil {
			return nil, nil, err
		}
		env = append(env, k+"="+s)
	}
	if len(argv) == 0 {
		return nil, nil, errors.New("clients: command: argv renders empty")
	}
	return argv, env, nil
}

// NotStarted says whether err comes from a command that could not be
// started at all (missing, not executable): the spec's mistake, not the
// client's behaviour.
func NotStarted(err error) bool {
	return errors.Is(err, exec.ErrNotFound) || errors.Is(err, exec.ErrDot) ||
		errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission)
}

// outputTail bounds the output a failure quotes.
const outputTail = 512

// Do runs the command for call; a non-zero exit, or ctx ending first, is
// the client's reported failure, quoting the end of its output.
func (c Command) Do(ctx context.Context, call Call) error {
	argv, env, err := c.render(call)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = c.Dir
	cmd.WaitDelay = time.Second
	killTree(cmd)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		tail := strings.TrimSpace(out.String())
		if len(tail) > outputTail {
			tail = "…" + tail[len(tail)-outputTail:]
		}
		return fmt.Errorf("%s: %w: %s", argv[0], err, tail)
	}
	return nil
}
