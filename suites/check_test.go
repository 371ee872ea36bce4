package suites

import "testing"

// checkByID returns the registered check with id, failing the test when
// there is none.
func checkByID(t *testing.T, id string) Check {
	t.Helper()
	for _, cs := range Suites() {
		for _, c := range cs {
			if c.ID == id {
				return c
			}
		}
	}
	t.Fatalf("no check %s is registered", id)
	return Check{}
}
