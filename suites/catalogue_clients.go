package suites

import "github.com/resilcheck/resilcheck/clients"

// clientEntries lists the client suite. Its checks judge a client calling
// the harness, not a service behind it, so they run through clients.Run
// (certify runs them for a target of kind client) and join the registry
// only here, in the catalogue.
func clientEntries() []Entry {
	var out []Entry
	for _, c := range clients.Checks() {
		e := Entry{ID: c.ID, Suite: clients.SuiteName, Level: c.Level, Title: c.Title, Source: c.Source, Needs: []string{}}
		for _, n := range c.Needs {
			e.Needs = append(e.Needs, n.Name)
		}
		out = append(out, e)
	}
	return out
}

// clientNeeds lists the client suite's needs for the catalogue's legend.
func clientNeeds() []Need {
	var out []Need
	for _, c := range clients.Checks() {
		for _, n := range c.Needs {
			out = append(out, Need{Name: n.Name, Doc: n.Doc})
		}
	}
	return out
}
