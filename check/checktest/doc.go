// Package checktest starts a fake stack for testing a check, as
// net/http/httptest does for handlers: a front proxy in front of a fake
// target of the test's own, and a dependency proxy whose stand-in answers
// every call as a charge, all on loopback and journaled together. Build a
// check.Harness on the Stack and run the check on it with check.Judge.
package checktest
