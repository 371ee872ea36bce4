package compose

import (
	"testing"

	"github.com/resilcheck/resilcheck/internal/moduletest"
)

// TestEngineModule runs the tests of compose/engine, the module of the
// real helper (a module of its own so compose's dependencies stay out of
// the resilcheck binary): they build the image and certify
// examples/compose on a Docker engine, or skip saying why without one.
// -short skips it, as it skips the defect matrix's certifications.
func TestEngineModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the image and certifies a compose stack")
	}
	moduletest.Run(t, "../..", "../../compose/engine", "RESILCHECK_REQUIRE_COMPOSE", "DOCKER_HOST", "RESILCHECK_COMPOSE_LEASES")
}
