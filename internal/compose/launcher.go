package compose

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/targets"
)

// Launcher brings a kind-compose target up through the helper. Its dependency
// proxies are placed before Launch, so their URLs go into the compose
// variables (compose.env); the spec's dependencies name where the real
// ones listen (upstream), a container of the project or not.
type Launcher struct {
	Target *targets.Target // validated and defaulted
	helper string          // the helper's path
}

var _ launch.Launcher = (*Launcher)(nil)

func newLauncher(t *targets.Target) (launch.Launcher, error) {
	path, err := findHelper()
	if err != nil {
		return nil, err
	}
	return &Launcher{Target: t, helper: path}, nil
}

// teardownTime bounds tearing a project down after a failed launch.
const teardownTime = 30 * time.Second

// Launch brings the project up and blocks until service.url's health
// answers 2xx. A project that does not come up, or whose service stays
// unhealthy, is torn down and yields a *launch.LogsError carrying every
// container's log and matching launch.ErrUnhealthy.
func (l *Launcher) Launch(ctx context.Context, env launch.Env) (*launch.Running, error) {
	t := l.Target
	project := t.Compose.Project
	if project == "" {
		project = "resilcheck-" + randomSuffix()
	}
	vars, err := l.vars(project, env.Dependencies, env.Tiers, env.CAFile)
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(t.Dir)
	if err != nil {
		return nil, fmt.Errorf("compose: %w", err)
	}
	args := []string{"serve", "--project", project, "--service", t.Compose.Service}
	for _, f := range t.Compose.Files {
		if !filepath.IsAbs(f) {
			f = filepath.Join(dir, f)
		}
		args = append(args, "--file", f)
	}
	h, err := startHelper(l.helper, args, dir, vars, env.Log)
	if err != nil {
		return nil, err
	}
	upCtx, cancel := context.WithTimeout(ctx, t.Service.StartupTimeout)
	defer cancel()
	ev, err := h.next(upCtx)
	switch {
	case err != nil:
		return nil, h.interrupt(ctx, fmt.Errorf("compose project %s did not come up: %w", project, err))
	case ev.Event == EventError:
		return nil, &launch.LogsError{Err: fmt.Errorf("compose project %s did not come up: %s", project, ev.Error), Logs: ev.Logs}
	case ev.Event != EventUp:
		return nil, l.abandon(ctx, h, fmt.Errorf("compose: %s answered %q, want %q", HelperName, ev.Event, EventUp))
	}
	if env.Log != nil {
		fmt.Fprintf(env.Log, "resilcheck: compose project %s is up: %s\n", project, strings.Join(ev.Services, ", "))
	}
	health := t.Service.Health
	if strings.HasPrefix(health, "/") {
		health = strings.TrimSuffix(t.Service.URL, "/") + health
	}
	if err := launch.WaitHealthyTLS(ctx, health, t.Service.StartupTimeout, env.ServiceTLS, launch.HealthPort(t.Service.Health, t.Service.Protocol)); err != nil {
		return nil, l.abandon(ctx, h, err)
	}
	return &launch.Running{
		URL:         t.Service.URL,
		URLs:        map[string]string{t.Compose.Service: t.Service.URL}, // the role the report knows it by
		StopFunc:    h.down,
		StopTimeout: teardownTime,
		LogsFunc: func(ctx context.Context) ([]launch.Log, error) {
			ev, err := h.request(ctx, OpLogs)
			return ev.Logs, err
		},
	}, nil
}

// abandon takes the project's logs, tears it down and returns cause with
// the logs attached.
func (l *Launcher) abandon(ctx context.Context, h *helper, cause error) error {
	c, cancel := context.WithTimeout(context.WithoutCancel(ctx), teardownTime)
	defer cancel()
	ev, logErr := h.request(c, OpLogs)
	if err := h.down(c); err != nil {
		cause = fmt.Errorf("%w; and tearing it down: %w", cause, err)
	}
	if logErr != nil {
		return fmt.Errorf("%w: %w; no logs: %w", launch.ErrUnhealthy, cause, logErr)
	}
	return &launch.LogsError{Err: cause, Logs: ev.Logs}
}

// vars renders compose.env into NAME=VALUE pairs, with .Dependencies as
// containers reach the proxies.
func (l *Launcher) vars(project string, proxies, hops map[string]string, caFile string) ([]string, error) {
	c := l.Target.Compose
	reach := func(what string, urls map[string]string) (map[string]string, error) {
		out := map[string]string{}
		for name, u := range urls {
			cu, err := containerURL(u, c.DependencyHost)
			if err != nil {
				return nil, fmt.Errorf("compose: %s %s: %w", what, name, err)
			}
			out[name] = cu
		}
		return out, nil
	}
	deps, err := reach("dependency", proxies)
	if err != nil {
		return nil, err
	}
	tiers, err := reach("tier", hops)
	if err != nil {
		return nil, err
	}
	values := targets.ComposeValues{Project: project, Dependencies: deps, Tiers: tiers, CAFile: caFile}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(c.Env)) {
		v, err := targets.Render(c.Env[k], values)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("compose: env %s", k), err)
		}
		out = append(out, k+"="+v)
	}
	return out, nil
}

func randomSuffix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
