// Package properties runs rapid properties (pgregory.net/rapid) outside
// `go test`, so the CLI can explore random operation and fault schedules with
// the run's seed and report a shrunk counterexample.
//
//	res := properties.Run("idempotency", properties.Config{Seed: seed, Checks: 20}, func(t *rapid.T) {
//		n := rapid.IntRange(1, 50).Draw(t, "copies")
//		...
//	})
//	if res.Failed { fmt.Println(res.Message, res.Counterexample) }
package properties
