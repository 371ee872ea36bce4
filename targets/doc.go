// Package targets describes the service resilcheck certifies (the target
// spec, a strictly decoded YAML file with a JSON Schema) and brings it up for
// a run (launchers for a running service, a process resilcheck starts, and,
// from a program's table of kinds (Plugins), the built-in reference, which
// also supplies its own spec).
//
//	t, err := targets.Load("target.yaml", targets.WithKinds(kinds.Specs())) // *SpecError with file:line:col problems
//	l, err := kinds.NewLauncher(t)
//	r, err := l.Launch(ctx, targets.LaunchEnv{Dependencies: proxyURLs, Log: w})
//	defer r.Stop(ctx)
//
// A launcher that starts its service's dependencies itself (the reference
// starts its processor; a compose file may start a database) implements
// DependencyLauncher: the harness then places no proxy up front for those,
// and Launch calls LaunchEnv.PlaceDependency with each one's address once it
// is up, handing the service the proxy URL it returns.
//
// Errors matching ErrUnhealthy mean the target could not be reached or did
// not become healthy; the run is then inconclusive.
package targets
