package check

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/resilcheck/resilcheck/reports"
)

//go:generate sh -c "cd .. && go run ./cmd/resilcheck checks --format md > docs/checks.md"

// CatalogueFormats lists the formats WriteCatalogue renders.
func CatalogueFormats() []string { return []string{"text", "json", "md"} }

// Entry is one check as the catalogue lists it.
type Entry struct {
	ID     string        `json:"id"`
	Suite  string        `json:"suite"`
	Level  reports.Level `json:"level"`
	Title  string        `json:"title"`
	Needs  []string      `json:"needs"`
	Source string        `json:"source"`
}

// Catalogue returns the checks of suites, suites in the order given and
// checks by ID within a suite, as reports list them.
func Catalogue(suites []Suite) []Entry {
	var out []Entry
	for _, s := range suites {
		cs := slices.Clone(s.Checks)
		slices.SortStableFunc(cs, func(a, b Check) int { return reports.CompareIDs(a.ID, b.ID) })
		for _, c := range cs {
			e := Entry{ID: c.ID, Suite: c.Suite, Level: c.Level, Title: c.Title, Source: c.Source, Needs: []string{}}
			for _, n := range c.Needs {
				e.Needs = append(e.Needs, n.Name)
			}
			out = append(out, e)
		}
	}
	return out
}

// catalogueNeeds returns every need some check declares, by name.
func catalogueNeeds(suites []Suite) []Need {
	seen := map[string]Need{}
	for _, s := range suites {
		for _, c := range s.Checks {
			for _, n := range c.Needs {
				seen[n.Name] = n
			}
		}
	}
	out := make([]Need, 0, len(seen))
	for _, n := range seen {
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b Need) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// WriteCatalogue renders the catalogue of checks in format (one of
// CatalogueFormats). docs/checks.md is its "md" output.
func WriteCatalogue(w io.Writer, format string, suites []Suite) error {
	var err error
	switch format {
	case "text":
		err = catalogueText(w, suites)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		err = enc.Encode(struct {
			Checks []Entry `json:"checks"`
		}{Catalogue(suites)})
	case "md":
		err = catalogueMarkdown(w, suites)
	default:
		return fmt.Errorf("check: unknown catalogue format %q (known: %s)", format, strings.Join(CatalogueFormats(), ", "))
	}
	if err != nil {
		return fmt.Errorf("check: writing the catalogue: %w", err)
	}
	return nil
}

func catalogueText(w io.Writer, suites []Suite) error {
	var b strings.Builder
	suite := ""
	for _, e := range Catalogue(suites) {
		if e.Suite != suite {
			if suite != "" {
				b.WriteString("\n")
			}
			suite = e.Suite
			b.WriteString(suite + "\n")
		}
		fmt.Fprintf(&b, "  %-7s %-12s %s\n", e.ID, e.Level, e.Title)
		fmt.Fprintf(&b, "          source: %s\n", e.Source)
		if len(e.Needs) > 0 {
			fmt.Fprintf(&b, "          needs:  %s\n", strings.Join(e.Needs, ", "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// levelMeaning explains each level in the generated documentation.
var levelMeaning = map[reports.Level]string{
	reports.LevelMust:        "the source states the rule with MUST or REQUIRED (BCP 14)",
	reports.LevelMustNot:     "the source states the rule with MUST NOT (BCP 14)",
	reports.LevelShould:      "the source states the rule with SHOULD (BCP 14)",
	reports.LevelShouldNot:   "the source states the rule with SHOULD NOT (BCP 14)",
	reports.LevelRecommended: "a recommendation: RECOMMENDED, or guidance in prose (\"ought to\", an SRE book chapter)",
	reports.LevelConvention:  "a de-facto convention: a vendor's documented behaviour or a library default",
}

func catalogueMarkdown(w io.Writer, suites []Suite) error {
	var b strings.Builder
	b.WriteString(`# Checks

<!-- Generated from the check registry (package check/builtin); do not edit.
     Regenerate: go run ./cmd/resilcheck checks --format md > docs/checks.md -->

Every check resilcheck runs, by suite. ` + "`resilcheck checks`" + ` prints the same list
(` + "`--format text|json|md`" + `). A check whose needs the target does not meet is reported
*not applicable*, with the reason.

## Levels

How strongly the cited source states the rule a check tests. A check derived from a
rule (a property over random faults, a scenario) carries the level of that rule.

| Level | Meaning |
|---|---|
`)
	for _, l := range reports.Levels() {
		fmt.Fprintf(&b, "| %s | %s |\n", l, levelMeaning[l])
	}
	b.WriteString("\n## Needs\n\nWhat a target must declare or show for a check to apply.\n\n| Need | Meaning |\n|---|---|\n")
	for _, n := range catalogueNeeds(suites) {
		fmt.Fprintf(&b, "| %s | %s |\n", n.Name, mdCell(n.Doc))
	}
	suite := ""
	for _, e := range Catalogue(suites) {
		if e.Suite != suite {
			suite = e.Suite
			fmt.Fprintf(&b, "\n## %s\n\n| ID | Level | Check | Needs | Source |\n|---|---|---|---|---|\n", suite)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", e.ID, e.Level, mdCell(e.Title), strings.Join(e.Needs, ", "), mdCell(e.Source))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdCell keeps a table cell on one line and its pipes literal.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
