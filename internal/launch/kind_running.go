package launch

import (
	"context"

	"github.com/resilcheck/resilcheck/targets"
)

// RunningLauncher "launches" a kind-running target: the service is already
// up, so it only waits (up to service.startup_timeout) for its health URL.
type RunningLauncher struct {
	Target *targets.Target // validated and defaulted
}

var _ Launcher = (*RunningLauncher)(nil)

// Launch blocks until the health URL answers 2xx. An unreachable or unhealthy
// service yields an *UnhealthyError (matching ErrUnhealthy) saying what was
// tried. Of env only ServiceTLS is used: nothing is started. Stop on the
// result does nothing.
func (l *RunningLauncher) Launch(ctx context.Context, env Env) (*Running, error) {
	s := l.Target.Service
	if err := waitHealthy(ctx, healthURL(s.URL, s.Health), s.StartupTimeout, nil, env.ServiceTLS, HealthPort(s.Health, s.Protocol)); err != nil {
		return nil, err
	}
	return &Running{URL: s.URL}, nil
}
