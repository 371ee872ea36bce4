// Package certify runs a certification: it places the fault proxies on both
// sides of the target, launches or reaches the target, runs the selected
// suites and assembles the report. The cmd/resilcheck certify command is a
// thin shell over Run.
//
//	res, err := certify.Run(ctx, certify.Config{Defects: set, Seed: 42})
//	err = res.Write("resilcheck-report", []string{"json", "junit", "md", "html"})
package certify
