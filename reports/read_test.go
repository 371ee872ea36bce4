package reports

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRead(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		in      string
		wantErr string // substring; "" means success
		schema  bool   // error must wrap ErrSchema
	}{
		{"minimal", `{"schema":"resilcheck.report/v1","verdict":"pass","checks":[]}`, "", false},
		{"unknown fields ignored", `{"schema":"resilcheck.report/v1","verdict":"pass","future":{"x":1}}`, "", false},
		{"duration as nanoseconds", `{"schema":"resilcheck.report/v1","verdict":"pass","duration":1500000000}`, "", false},
		{"other schema", `{"schema":"resilcheck.report/v2","verdict":"pass"}`, `unsupported report schema "resilcheck.report/v2"`, true},
		{"no schema", `{"verdict":"pass"}`, `no "schema" field`, true},
		{"not json", `<html>`, "reports: decode report", false},
		{"empty", ``, "reports: decode report", false},
		{"unknown verdict", `{"schema":"resilcheck.report/v1","verdict":"green"}`, `unknown verdict "green"`, false},
		{"unknown status", `{"schema":"resilcheck.report/v1","verdict":"pass","checks":[{"id":"IK-1","status":"ok"}]}`, `check 0 (IK-1): unknown status "ok"`, false},
		{"bad duration", `{"schema":"resilcheck.report/v1","verdict":"pass","duration":"soon"}`, `invalid duration`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r, err := Read(strings.NewReader(c.in))
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("Read(%s) error %v; want success", c.in, err)
			case c.wantErr == "":
				if r == nil {
					t.Fatalf("Read(%s) = nil report", c.in)
				}
			case err == nil || !strings.Contains(err.Error(), c.wantErr):
				t.Fatalf("Read(%s) error %v; want one containing %q", c.in, err, c.wantErr)
			case c.schema != errors.Is(err, ErrSchema):
				t.Fatalf("Read(%s) error %v: errors.Is(ErrSchema) = %v; want %v", c.in, err, !c.schema, c.schema)
			}
		})
	}
}

func TestRead_legacySkipped(t *testing.T) {
	t.Parallel()
	in := `{"schema":"resilcheck.report/v1","verdict":"pass","suites":[{"name":"a","pass":0,"fail":0,"inconclusive":0,"skipped":1}],` +
		`"checks":[{"id":"X-1","suite":"a","status":"skipped","reason":"no dependency"}]}`
	r, err := Read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Checks[0].Status; got != StatusNotApplicable {
		t.Errorf("status %q; want %q", got, StatusNotApplicable)
	}
	if want := []SuiteSummary{{Name: "a", NotApplicable: 1}}; !slices.Equal(r.Suites, want) {
		t.Errorf("suites %+v; want %+v", r.Suites, want)
	}
}

func TestRead_Fixture(t *testing.T) {
	t.Parallel()
	want := fixture()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, want); err != nil {
		t.Fatal(err)
	}
	got, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if diff := reportDiff(want, got); diff != "" {
		t.Errorf("fixture JSON round trip differs: %s", diff)
	}
}

func TestDuration_JSON(t *testing.T) {
	t.Parallel()
	for _, d := range []time.Duration{0, 1, 1500 * time.Millisecond, -3 * time.Second, 1<<63 - 1, -1 << 63} {
		b, err := Duration(d).MarshalJSON()
		if err != nil {
			t.Fatalf("MarshalJSON(%v): %v", d, err)
		}
		var got Duration
		if err := got.UnmarshalJSON(b); err != nil || got.Std() != d {
			t.Errorf("Duration(%v) -> %s -> %v, %v; want %v", d, b, got.Std(), err, d)
		}
	}
}
