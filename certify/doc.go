// Package certify runs a certification: it places the fault proxies on both
// sides of the target, launches or reaches the target through the launcher
// Config.Kinds has for its spec's kind, runs the selected suites and
// assembles the report. It knows targets only by their specs; the reference
// stack is one more kind, which only a caller's table of kinds links in. The
// `resilcheck certify` command (package cli) is a thin shell over Run.
//
//	t, err := targets.Load("target.yaml")
//	res, err := certify.Run(ctx, certify.Config{Target: t, Seed: 42})
//	err = res.Write("resilcheck-report", []string{"json", "junit", "md", "html"})
//	err = res.Err() // nil, or the verdict: ErrFailed, ErrInconclusive, ErrInterrupted
package certify
