package check_test

import (
	"testing"

	"github.com/resilcheck/resilcheck/internal/moduletest"
)

// TestCustomCheckModule runs the tests of examples/customcheck, a module of
// its own as a user's would be, which registers a check of its own and
// certifies with it through the public API.
func TestCustomCheckModule(t *testing.T) {
	moduletest.Run(t, "..", "../examples/customcheck")
}
