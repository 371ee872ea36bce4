package builtin

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/resilcheck/resilcheck/check"
)

// checkByID returns the registered check with id, failing the test when
// there is none.
func checkByID(t *testing.T, id string) check.Check {
	t.Helper()
	for _, s := range Suites() {
		for _, c := range s.Checks {
			if c.ID == id {
				return c
			}
		}
	}
	t.Fatalf("no check %s is registered", id)
	return check.Check{}
}

func TestRegistry_fields(t *testing.T) {
	t.Parallel()
	if err := check.Validate(Catalogued()); err != nil {
		t.Error(err)
	}
}

// externalFile matches a file name a citation might carry: only a path in a
// public repository (github.com/owner/repo/...) is a source a user can read.
var externalFile = regexp.MustCompile(`[\w./-]*[\w-]\.(md|txt|go|ya?ml|json|scala|proto|cc|py)\b`)

// privateFile reports the first file s cites that a user cannot open.
func privateFile(s string) string {
	for _, f := range externalFile.FindAllString(s, -1) {
		if !strings.HasPrefix(f, "github.com/") {
			return f
		}
	}
	return ""
}

func TestPrivateFile(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]string{
		"RFC 9110 §10.2.3":                           "",
		"github.com/grpc/grpc/doc/PROTOCOL-HTTP2.md": "",
		"standards.md RL-24 (derived)":               "standards.md",
		"grpc PROTOCOL-HTTP2.md (grpc-timeout)":      "PROTOCOL-HTTP2.md",
		"see shared/reference/standards.md §0":       "shared/reference/standards.md",
		"Finagle RetryBudget() defaults":             "",
		"RFC 9110 §15.6.5; 0.5 s":                    "",
	} {
		if got := privateFile(s); got != want {
			t.Errorf("privateFile(%q) = %q; want %q", s, got, want)
		}
	}
}

// TestCatalogue_uniqueIDs holds the client suite's IDs apart from the
// service suites' ones: reports and --check name a check by ID alone.
func TestCatalogue_uniqueIDs(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for _, e := range check.Catalogue(Catalogued()) {
		if prev, ok := seen[e.ID]; ok {
			t.Errorf("check ID %s is in suites %s and %s", e.ID, prev, e.Suite)
		}
		seen[e.ID] = e.Suite
	}
}

func TestRegistry_publicSources(t *testing.T) {
	t.Parallel()
	for _, e := range check.Catalogue(Catalogued()) {
		if f := privateFile(e.Source + " " + e.Title); f != "" {
			t.Errorf("check %s cites %s, a file users cannot read: cite the public source (RFC or draft section, book chapter, docs page)", e.ID, f)
		}
	}
	for _, tol := range (&check.Harness{Suites: Suites()}).Tolerances() {
		if f := privateFile(tol.Name + " " + tol.Value + " " + tol.Why); f != "" {
			t.Errorf("tolerance %q cites %s, a file users cannot read", tol.Name, f)
		}
	}
}

func TestCatalogue_docsUpToDate(t *testing.T) {
	t.Parallel()
	var got bytes.Buffer
	if err := check.WriteCatalogue(&got, "md", Catalogued()); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../docs/checks.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("docs/checks.md differs from the check registry; regenerate it with\n\tgo run ./cmd/resilcheck checks --format md > docs/checks.md\n(or go generate ./check)")
	}
}
