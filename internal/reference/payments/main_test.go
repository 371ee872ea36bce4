package payments_test

import (
	"os"
	"testing"

	"github.com/resilcheck/resilcheck/internal/pgtest"
)

func TestMain(m *testing.M) {
	if os.Getenv(envChild) == "1" {
		runChild() // the crash test's service process; never returns
	}
	pgtest.Main(m)
}
