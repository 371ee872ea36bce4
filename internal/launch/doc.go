// Package launch brings a target up for a run and takes it down again: a
// service already running, a process resilcheck starts in its own process
// group, or any kind a program adds through its table of Kinds (the
// reference stack, a compose project). It waits for the target's health and
// keeps its output for the report. Specs are package targets' business.
//
//	kinds := launch.Kinds{targets.KindRunning: launch.RunningKind(), targets.KindProcess: launch.ProcessKind()}
//	t, err := targets.Load("target.yaml", targets.WithKinds(kinds.Specs()))
//	l, err := kinds.NewLauncher(t)
//	r, err := l.Launch(ctx, launch.Env{Dependencies: proxyURLs, Log: w})
//	defer r.Stop(ctx)
//
// A launcher that starts its service's dependencies itself (the reference
// starts its processor; a compose file may start a database) implements
// DependencyLauncher: the harness then places no proxy up front for those,
// and Launch calls Env.PlaceDependency with each one's address once it is
// up, handing the service the proxy URL it returns.
//
// Errors matching ErrUnhealthy mean the target could not be reached or did
// not become healthy; the run is then inconclusive.
package launch
