// Package target makes the reference stack an ordinary resilcheck target:
// Kind is kind reference, supplying the stack's own spec (its operation,
// dependency, effects, conventions and declared policy) and a launcher that
// starts the stack with the spec's defects and store. reference.face picks
// what is certified: the gateway's HTTP API (the default) or the payments
// service's gRPC face. It also holds the defect matrix: the checks each
// defect must fail.
//
// Programs that certify the reference put Kind in their table of kinds:
//
//	kinds := launch.Kinds{targets.KindReference: target.Kind()}
//	t, err := targets.Parse("reference.yaml", []byte("kind: reference\nreference: {defects: [no-jitter]}\n"), targets.WithKinds(kinds.Specs()))
//	res, err := certify.Run(ctx, certify.Config{Target: t, Kinds: kinds})
package target
