// Package reports holds the certification report model, a versioned JSON
// document ("schema": "resilcheck.report/v1"), and its writers: console
// (80 columns), JSON, JUnit XML, Markdown (within $GITHUB_STEP_SUMMARY's
// 1 MiB) and a self-contained HTML page with a filter, a timeline of each
// check's evidence (one lane per concurrent exchange) and, for a load-driven
// check, its rate and latency over time. Every format lists failures first,
// uses the same status words and is valid UTF-8 whatever bytes a target sent.
//
// A run fills a Report, calls Finalize to sort the checks and derive the
// verdict, then writes it:
//
//	rep := &reports.Report{Seed: 42, Target: reports.Target{Name: "payments", Kind: "running"}}
//	rep.Checks = append(rep.Checks, reports.Check{
//		ID: "IK-07", Suite: "idempotency", Title: "retry after a lost response charges once",
//		Status: reports.StatusFail, Expected: "1 effect", Observed: "2 effects",
//	})
//	rep.Finalize() // rep.Verdict == reports.VerdictFail
//	_ = reports.WriteConsole(os.Stdout, rep)
//	_ = reports.WriteDir("resilcheck-report", rep, []string{"json", "junit", "md", "html"})
//
// Reading a saved report back, for example to render it again:
//
//	rep, err := reports.Read(f) // rejects any schema other than reports.Schema
//	w, err := reports.WriterFor("md")
//	err = w(os.Stdout, rep)
//
// Every writer is deterministic for a given Report: map keys are sorted and
// nothing reads the clock. The package depends on no other resilcheck package.
package reports
