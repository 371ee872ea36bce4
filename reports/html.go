package reports

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"maps"
	"slices"
	"time"
)

var _ Writer = WriteHTML

//go:embed templates/report.html.tmpl
var templateFS embed.FS

// htmlTemplate is parsed once; html/template escapes every value by context.
var htmlTemplate = template.Must(template.ParseFS(templateFS, "templates/report.html.tmpl"))

// WriteHTML writes one self-contained HTML page: inline CSS, inline SVG, no
// scripts and no external assets. Each check shows its evidence, and a
// timeline plot of the exchanges when there are any.
func WriteHTML(w io.Writer, r *Report) error {
	r = escaped(r, escapeControls)
	return htmlTemplate.ExecuteTemplate(w, "report", newHTMLView(r))
}

// htmlView is everything the template shows, preformatted so the template
// holds no logic beyond loops and conditionals.
type htmlView struct {
	R        *Report
	Counts   string
	Started  string
	Duration string
	URLs     []keyValue
	Totals   SuiteSummary
	Checks   []htmlCheck
}

type htmlCheck struct {
	Check
	Anchor   string
	Open     bool
	Duration string
	Evidence []htmlExchange
	Timeline *timeline
}

type htmlExchange struct {
	Exchange
	At, Took, Status, Class string
	Headers                 []keyValue
}

type keyValue struct{ Key, Value string }

func newHTMLView(r *Report) htmlView {
	v := htmlView{
		R: r, Counts: counts(r.Totals()), Totals: r.Totals(),
		Started: r.Started.UTC().Format(time.RFC3339), Duration: short(r.Duration),
		URLs: sortedPairs(r.Target.URLs),
	}
	for i, c := range r.Checks {
		hc := htmlCheck{Check: c, Anchor: fmt.Sprintf("check-%d", i+1), Open: c.Status == StatusFail,
			Duration: short(c.Duration), Timeline: newTimeline(c.Evidence)}
		for _, e := range c.Evidence {
			hc.Evidence = append(hc.Evidence, htmlExchange{Exchange: e, At: offset(e.At), Took: short(e.Took),
				Status: statusText(e.Status), Class: markClass(e), Headers: sortedPairs(e.Headers)})
		}
		v.Checks = append(v.Checks, hc)
	}
	return v
}

func sortedPairs(m map[string]string) []keyValue {
	out := make([]keyValue, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, keyValue{k, m[k]})
	}
	return out
}
