// Package target makes the reference stack an ordinary resilcheck target:
// it registers kind reference with package targets, supplying the stack's
// own spec (its operation, dependency, effects, conventions and declared
// policy) and a launcher that starts the stack with the spec's defects and
// store. It also holds the defect matrix: the checks each defect must fail.
//
// Programs that certify the reference import it for its registration:
//
//	import _ "github.com/resilcheck/resilcheck/reference/target"
//
//	t, err := targets.Parse("reference.yaml", []byte("kind: reference\nreference: {defects: [no-jitter]}\n"))
//	res, err := certify.Run(ctx, certify.Config{Target: t})
package target
