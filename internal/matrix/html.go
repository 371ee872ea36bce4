package matrix

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"time"

	"github.com/resilcheck/resilcheck/reports"
)

//go:embed templates/matrix.html.tmpl
var htmlSource string

// htmlTemplate is parsed once; html/template escapes every value by context.
var htmlTemplate = template.Must(template.New("matrix").Parse(htmlSource))

type htmlView struct {
	Verdict, Version, Started, Took string
	Seed                            uint64
	Runs                            int
	Clean                           bool
	Rows                            []htmlRow
	Groups                          []group
	Grid                            []htmlGridRow
	Disagreements, UnstableCells    []htmlNote
	Skipped                         []string
}

type htmlRow struct {
	Name, Kind, Versions, Seeds, Report, Error        string
	Pass, Fail, Inconclusive, NotApplicable, Disagree int
}

type htmlGridRow struct {
	Name, Kind string
	Cells      []htmlCell
}

type htmlCell struct {
	Held                    bool
	Class, Sign, Note, Link string
}

type htmlNote struct{ Target, Note, Link string }

// WriteHTML writes m as one self-contained page: a summary of the targets,
// the grid of verdicts (a row per target, a column per check grouped by
// contract, each cell coloured by verdict, outlined where it disagrees
// with the expectations, hatched where the runs differed, linking to the
// evidence), then the disagreements and unstable cells with their reasons.
func WriteHTML(w io.Writer, m *Matrix) error {
	cells, rows := m.Disagreements()
	v := htmlView{Verdict: m.Verdict(), Version: orDash(m.Version), Started: m.Started.UTC().Format(time.RFC3339), Took: m.Took.Std().Round(100 * time.Millisecond).String(),
		Seed: m.Seed, Runs: m.Runs, Clean: cells == 0 && rows == 0, Groups: m.groups(), Skipped: m.Skipped}
	for _, r := range m.Rows {
		n := r.counts()
		hr := htmlRow{Name: r.Name, Kind: r.Kind, Versions: versions(r.Versions), Seeds: seeds(r.Seeds), Error: r.Error,
			Pass: n[reports.StatusPass], Fail: n[reports.StatusFail], Inconclusive: n[reports.StatusInconclusive],
			NotApplicable: n[reports.StatusNotApplicable], Disagree: r.disagreements()}
		if len(r.Reports) > 0 {
			hr.Report = href(r.Reports[0]) + "/report.html"
		}
		v.Rows = append(v.Rows, hr)
		g := htmlGridRow{Name: r.Name, Kind: r.Kind}
		for _, col := range m.Columns {
			c, ok := r.Cells[col.ID]
			if !ok {
				g.Cells = append(g.Cells, htmlCell{})
				continue
			}
			class := string(c.Status)
			if class == "" {
				class = "missing"
			}
			if !c.Agrees {
				class += " off"
				v.Disagreements = append(v.Disagreements, htmlNote{r.Name, c.note(col.ID), c.Link})
			}
			if c.Unstable {
				class += " unstable"
				v.UnstableCells = append(v.UnstableCells, htmlNote{r.Name, c.note(col.ID), c.Link})
			}
			g.Cells = append(g.Cells, htmlCell{Held: true, Class: class, Sign: mark(c.Status), Note: c.note(col.ID), Link: c.Link})
		}
		v.Grid = append(v.Grid, g)
	}
	if err := htmlTemplate.Execute(w, v); err != nil {
		return fmt.Errorf("matrix: html: %w", err)
	}
	return nil
}
