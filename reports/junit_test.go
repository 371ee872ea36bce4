package reports

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
	"testing"

	"github.com/jstemmer/go-junit-report/v2/junit"
)

// parseJUnit decodes JUnit XML strictly and checks that every count
// attribute matches the elements it counts.
func parseJUnit(b []byte) (junit.Testsuites, error) {
	var ts junit.Testsuites
	dec := xml.NewDecoder(bytes.NewReader(b))
	dec.Strict = true
	if err := dec.Decode(&ts); err != nil {
		return ts, err
	}
	var tests, failures, errs, skipped int
	for _, s := range ts.Suites {
		var f, e, sk int
		for _, c := range s.Testcases {
			if c.Failure != nil {
				f++
			}
			if c.Error != nil {
				e++
			}
			if c.Skipped != nil {
				sk++
			}
		}
		if s.Tests != len(s.Testcases) || s.Failures != f || s.Errors != e || s.Skipped != sk {
			return ts, fmt.Errorf("suite %q counts tests=%d failures=%d errors=%d skipped=%d; elements say %d %d %d %d",
				s.Name, s.Tests, s.Failures, s.Errors, s.Skipped, len(s.Testcases), f, e, sk)
		}
		tests, failures, errs, skipped = tests+s.Tests, failures+f, errs+e, skipped+sk
	}
	if ts.Tests != tests || ts.Failures != failures || ts.Errors != errs || ts.Skipped != skipped {
		return ts, fmt.Errorf("testsuites counts %d %d %d %d; suites sum to %d %d %d %d",
			ts.Tests, ts.Failures, ts.Errors, ts.Skipped, tests, failures, errs, skipped)
	}
	return ts, nil
}

func TestWriteJUnit_Valid(t *testing.T) {
	t.Parallel()
	garbage := fixture()
	garbage.Checks[1].Observed = "bytes \x00\x01\x1b[31m ]]> \xff\xfe end" // a target answering garbage
	cases := []struct {
		name string
		rep  *Report
	}{{"full", fixture()}, {"interrupted", interruptedFixture()}, {"garbage", garbage}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := WriteJUnit(&buf, c.rep); err != nil {
				t.Fatal(err)
			}
			ts, err := parseJUnit(buf.Bytes())
			if err != nil {
				t.Fatalf("WriteJUnit output invalid: %v\n%s", err, buf.String())
			}
			tot := c.rep.Totals()
			extra := 0
			if c.rep.Interrupted != "" {
				extra = 1
			}
			if ts.Tests != len(c.rep.Checks)+extra || ts.Failures != tot.Fail || ts.Errors != tot.Inconclusive+extra || ts.Skipped != tot.NotApplicable {
				t.Errorf("testsuites tests=%d failures=%d errors=%d skipped=%d; want %d %d %d %d",
					ts.Tests, ts.Failures, ts.Errors, ts.Skipped, len(c.rep.Checks)+extra, tot.Fail, tot.Inconclusive+extra, tot.NotApplicable)
			}
			for _, s := range ts.Suites {
				for _, tc := range s.Testcases {
					if tc.Classname != s.Name {
						t.Errorf("testcase %q classname %q in suite %q", tc.Name, tc.Classname, s.Name)
					}
					if tc.Failure != nil && !strings.Contains(tc.Failure.Data, "reproduce: ") {
						t.Errorf("failure %q carries no reproduce line", tc.Name)
					}
				}
			}
		})
	}
}
