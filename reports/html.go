package reports

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"maps"
	"slices"
	"time"
)

var _ Writer = WriteHTML

//go:embed templates/report.html.tmpl templates/filter.js
var templateFS embed.FS

// htmlTemplate is parsed once; html/template escapes every value by context.
var htmlTemplate = template.Must(template.ParseFS(templateFS, "templates/report.html.tmpl"))

// filterJS is the page's only script, inline; the page's Content-Security-
// Policy allows it by hash and nothing else, so the page loads nothing.
var filterJS, filterHash = func() (template.JS, string) {
	b, err := templateFS.ReadFile("templates/filter.js")
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(b)
	return template.JS(b), "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}()

// WriteHTML writes one self-contained HTML page: inline CSS, inline SVG and
// one inline script (a filter by status, suite and level); nothing is loaded
// from elsewhere, so it works offline. Failures come first and open, the
// passing checks collapsed; each check shows its evidence, a timeline with
// one lane per concurrent exchange and, for a load-driven check, its rate
// and latency over time.
func WriteHTML(w io.Writer, r *Report) error {
	r = escaped(r, escapeControls)
	return htmlTemplate.ExecuteTemplate(w, "report", newHTMLView(r))
}

// htmlView is everything the template shows, preformatted so the template
// holds no logic beyond loops and conditionals.
type htmlView struct {
	R          *Report
	Counts     string
	Started    string
	Duration   string
	URLs       []keyValue
	Totals     SuiteSummary
	Statuses   []htmlStatus
	Suites     []string
	Levels     []string
	Attention  []htmlCheck // every check that did not pass, failures first
	Passing    []htmlCheck
	Script     template.JS
	ScriptHash string
	Gate       string   // the gate the verdict follows; "" for a report without one
	Waivers    []string // each waiver and what it did
	Baseline   []string // the comparison with the baseline, a summary line then the lists
}

// htmlStatus is one checkbox of the filter.
type htmlStatus struct {
	Value, Word string
	Count       int
}

type htmlCheck struct {
	Check
	Word     string
	Anchor   string
	Open     bool
	Duration string
	Evidence []htmlExchange
	Sampled  string // says how the evidence was sampled, "" when it is whole
	Timeline *timeline
	Load     *loadChart
	GateNote string // why the gate did not count this check, "" when it did
}

type htmlExchange struct {
	Exchange
	At, Took, Status, Class string
	Headers                 []keyValue
}

type keyValue struct{ Key, Value string }

func newHTMLView(r *Report) htmlView {
	t := r.Totals()
	v := htmlView{
		R: r, Counts: counts(t), Totals: t,
		Started: r.Started.UTC().Format(time.RFC3339), Duration: short(r.Duration),
		URLs: sortedPairs(r.Target.URLs), Script: filterJS, ScriptHash: filterHash,
		Statuses: []htmlStatus{{string(StatusFail), StatusFail.Word(), t.Fail}, {string(StatusInconclusive), StatusInconclusive.Word(), t.Inconclusive},
			{string(StatusNotApplicable), StatusNotApplicable.Word(), t.NotApplicable}, {string(StatusPass), StatusPass.Word(), t.Pass}},
	}
	for _, s := range r.Suites {
		v.Suites = append(v.Suites, s.Name)
	}
	if r.Gate != nil {
		v.Gate = gateWords(r.Gate)
		for _, w := range r.Gate.Waivers {
			v.Waivers = append(v.Waivers, waiverWords(w))
		}
	}
	if b := r.Baseline; b != nil {
		v.Baseline = append([]string{b.File + ": " + baselineWords(b)}, baselineLists(b)...)
	}
	levels := map[string]bool{}
	for _, c := range failuresFirst(r.Checks) {
		levels[string(c.Level)] = true
		if c.Status == StatusPass {
			v.Passing = append(v.Passing, newHTMLCheck(c))
		} else {
			hc := newHTMLCheck(c)
			hc.GateNote = gateNote(c, r.Gate)
			v.Attention = append(v.Attention, hc)
		}
	}
	for _, l := range Levels() {
		if levels[string(l)] {
			v.Levels = append(v.Levels, string(l))
			delete(levels, string(l))
		}
	}
	v.Levels = append(v.Levels, slices.Sorted(maps.Keys(levels))...) // levels from an older or newer writer
	return v
}

// CheckAnchor is the fragment that names check id's section in the HTML
// report (report.html#check-IK-03), which other pages may link to.
func CheckAnchor(id string) string {
	return "check-" + SafeName(id, "-_.")
}

func newHTMLCheck(c Check) htmlCheck {
	hc := htmlCheck{Check: c, Word: c.Status.Word(), Anchor: CheckAnchor(c.ID), Open: c.Status == StatusFail,
		Duration: short(c.Duration), Timeline: newTimeline(c.Evidence), Load: newLoadChart(c.Load)}
	if c.EvidenceTotal > len(c.Evidence) {
		hc.Sampled = fmt.Sprintf("%d of %d exchanges: those around each injected fault, then the first and the last.", len(c.Evidence), c.EvidenceTotal)
	}
	for _, e := range c.Evidence {
		hc.Evidence = append(hc.Evidence, htmlExchange{Exchange: e, At: offset(e.At), Took: short(e.Took),
			Status: statusText(e.Status), Class: markClass(e), Headers: sortedPairs(e.Headers)})
	}
	return hc
}

func sortedPairs(m map[string]string) []keyValue {
	out := make([]keyValue, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, keyValue{k, m[k]})
	}
	return out
}
