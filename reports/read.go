package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ErrSchema is wrapped by Read when the input is not a v1 report.
var ErrSchema = errors.New("reports: unsupported report schema")

// Read decodes a JSON report and validates it: the schema must be Schema,
// the verdict and every status one of the known values. Unknown fields are
// ignored, so a newer v1 writer's additions do not break an older reader.
func Read(r io.Reader) (*Report, error) {
	var probe struct {
		Schema *string `json:"schema"`
	}
	dec := json.NewDecoder(r)
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("reports: decode report: %w", err)
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, fmt.Errorf("reports: decode report: %w", err)
	}
	switch {
	case probe.Schema == nil:
		return nil, fmt.Errorf("%w: no \"schema\" field (want %q)", ErrSchema, Schema)
	case *probe.Schema != Schema:
		return nil, fmt.Errorf("%w %q (want %q)", ErrSchema, *probe.Schema, Schema)
	}
	rep := new(Report)
	if err := json.Unmarshal(raw, rep); err != nil {
		return nil, fmt.Errorf("reports: decode report: %w", err)
	}
	if err := rep.validate(); err != nil {
		return nil, err
	}
	return rep, nil
}

// validate reports the first value outside the documented enumerations. A
// check a report from before not-applicable marked "skipped" is read as not
// applicable, and the suite counts are recomputed to match.
func (r *Report) validate() error {
	switch r.Verdict {
	case VerdictPass, VerdictFail, VerdictInconclusive, VerdictInterrupted:
	default:
		return fmt.Errorf("reports: unknown verdict %q", r.Verdict)
	}
	legacy := false
	for i, c := range r.Checks {
		switch c.Status {
		case statusSkipped:
			r.Checks[i].Status, legacy = StatusNotApplicable, true
		case StatusPass, StatusFail, StatusInconclusive, StatusNotApplicable:
		default:
			return fmt.Errorf("reports: check %d (%s): unknown status %q", i, c.ID, c.Status)
		}
	}
	if legacy {
		r.Suites = summarize(r.Checks, r.Suites)
	}
	return nil
}
