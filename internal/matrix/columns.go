package matrix

import (
	"slices"

	"github.com/resilcheck/resilcheck/check"
)

// columns are the checks some system runs, in catalogue order: the
// service contracts first, then the client's.
func columns(systems []System, cat Catalogue) []Column {
	used := map[string]bool{}
	for _, s := range systems {
		for _, id := range s.IDs {
			used[id] = true
		}
	}
	var out []Column
	for _, es := range [][]check.Entry{cat.Service, cat.Client} {
		for _, e := range es {
			if used[e.ID] && !slices.ContainsFunc(out, func(c Column) bool { return c.ID == e.ID }) {
				out = append(out, Column{ID: e.ID, Suite: e.Suite, Title: e.Title, Level: e.Level})
			}
		}
	}
	return out
}

// NewCatalogue splits the catalogue of suites into the checks services
// and clients are certified by; clientSuite names the client suite.
func NewCatalogue(entries []check.Entry, clientSuite string) Catalogue {
	var c Catalogue
	for _, e := range entries {
		if e.Suite == clientSuite {
			c.Client = append(c.Client, e)
		} else {
			c.Service = append(c.Service, e)
		}
	}
	return c
}
