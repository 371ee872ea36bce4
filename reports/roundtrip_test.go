package reports

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// reportDiff returns "" when a and b are deeply equal, else both as JSON.
func reportDiff(a, b *Report) string {
	if reflect.DeepEqual(a, b) {
		return ""
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return "\nwant " + string(ja) + "\ngot  " + string(jb)
}

// Generators draw reports in canonical form: empty omitempty collections are
// nil, as decoding yields them, and times are UTC.
var (
	genText = rapid.OneOf(rapid.String(), rapid.SampledFrom([]string{"", "IK-07", "<b>&\"x\"</b>", "a|b`c", "line\nbreak"}))
	genDur  = rapid.Custom(func(t *rapid.T) Duration { return Duration(rapid.Int64().Draw(t, "ns")) })

	genStrMap = rapid.Custom(func(t *rapid.T) map[string]string {
		m := rapid.MapOfN(genText, genText, 0, 3).Draw(t, "map")
		if len(m) == 0 {
			return nil
		}
		return m
	})

	genExchange = rapid.Custom(func(t *rapid.T) Exchange {
		return Exchange{
			ID: rapid.Uint64().Draw(t, "id"), Side: rapid.SampledFrom([]string{"client", "front", "dependency"}).Draw(t, "side"),
			Case: genText.Draw(t, "case"), Method: genText.Draw(t, "method"), Path: genText.Draw(t, "path"),
			Headers: genStrMap.Draw(t, "headers"), Status: rapid.IntRange(0, 599).Draw(t, "status"),
			Fault: genText.Draw(t, "fault"), At: genDur.Draw(t, "at"), Took: genDur.Draw(t, "took"), Note: genText.Draw(t, "note"),
		}
	})

	genPoint = rapid.Custom(func(t *rapid.T) LoadPoint {
		n := rapid.OneOf(rapid.IntRange(-2, 50), rapid.Int())
		return LoadPoint{OK: n.Draw(t, "ok"), Refused: n.Draw(t, "refused"), Failed: n.Draw(t, "failed"),
			P50: genDur.Draw(t, "p50"), Max: genDur.Draw(t, "max")}
	})

	genLoad = rapid.Custom(func(t *rapid.T) *Load {
		if rapid.Bool().Draw(t, "no load") {
			return nil
		}
		return &Load{Start: genDur.Draw(t, "start"), Bucket: genDur.Draw(t, "bucket"),
			Sides: nilIfEmpty(rapid.SliceOfN(rapid.Custom(func(t *rapid.T) LoadSide {
				return LoadSide{Side: genText.Draw(t, "side"), Points: nilIfEmpty(rapid.SliceOfN(genPoint, 0, 5).Draw(t, "points"))}
			}), 0, 3).Draw(t, "sides"))}
	})

	genCheck = rapid.Custom(func(t *rapid.T) Check {
		return Check{
			ID: genText.Draw(t, "id"), Suite: genText.Draw(t, "suite"), Title: genText.Draw(t, "title"),
			Source: genText.Draw(t, "source"), Level: Level(genText.Draw(t, "level")),
			Status:   rapid.SampledFrom([]Status{StatusPass, StatusFail, StatusInconclusive, StatusNotApplicable}).Draw(t, "status"),
			Expected: genText.Draw(t, "expected"), Observed: genText.Draw(t, "observed"), Reason: genText.Draw(t, "reason"),
			Evidence:       nilIfEmpty(rapid.SliceOfN(genExchange, 0, 4).Draw(t, "evidence")),
			EvidenceTotal:  rapid.IntRange(0, 1000).Draw(t, "evidence total"),
			Load:           genLoad.Draw(t, "load"),
			Reproduce:      genText.Draw(t, "reproduce"),
			Counterexample: nilIfEmpty(rapid.SliceOfN(genText, 0, 3).Draw(t, "counterexample")),
			Duration:       genDur.Draw(t, "duration"),
		}
	})

	genReport = rapid.Custom(func(t *rapid.T) *Report {
		r := &Report{
			Seed: rapid.Uint64().Draw(t, "seed"), Reproduce: genText.Draw(t, "reproduce"),
			Target: Target{Name: genText.Draw(t, "name"), Kind: genText.Draw(t, "kind"), URLs: genStrMap.Draw(t, "urls"),
				Defects: nilIfEmpty(rapid.SliceOfN(genText, 0, 2).Draw(t, "defects"))},
			Tool:        Tool{Name: genText.Draw(t, "tool"), Version: genText.Draw(t, "version"), Go: genText.Draw(t, "go")},
			Started:     time.Unix(rapid.Int64Range(-1e10, 1e10).Draw(t, "sec"), rapid.Int64Range(0, 1e9-1).Draw(t, "nsec")).UTC(),
			Duration:    genDur.Draw(t, "duration"),
			Interrupted: genText.Draw(t, "interrupted"),
			Tolerances: rapid.SliceOfN(rapid.Custom(func(t *rapid.T) Tolerance {
				return Tolerance{Name: genText.Draw(t, "name"), Value: genText.Draw(t, "value"), Why: genText.Draw(t, "why")}
			}), 0, 3).Draw(t, "tolerances"),
			Checks:  rapid.SliceOfN(genCheck, 0, 5).Draw(t, "checks"),
			Journal: genText.Draw(t, "journal"),
		}
		if rapid.Bool().Draw(t, "finalize") {
			r.Finalize()
		} else {
			r.Schema, r.Verdict = Schema, rapid.SampledFrom([]Verdict{VerdictPass, VerdictFail, VerdictInconclusive, VerdictInterrupted}).Draw(t, "verdict")
		}
		return r
	})
)

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

func TestWriteJSON_RoundTrip(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		want := genReport.Draw(t, "report")
		var buf bytes.Buffer
		if err := WriteJSON(&buf, want); err != nil {
			t.Fatalf("WriteJSON: %v", err)
		}
		got, err := Read(&buf)
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		if diff := reportDiff(want, got); diff != "" {
			t.Fatalf("encode then Read is not the identity: %s", diff)
		}
	})
}

// TestWriters_AnyReport runs every writer over arbitrary reports: none may
// fail or panic, whatever the text.
func TestWriters_AnyReport(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		r := genReport.Draw(t, "report")
		for _, f := range Writers() {
			w, _ := WriterFor(f)
			var buf bytes.Buffer
			if err := w(&buf, r); err != nil {
				t.Fatalf("%s writer: %v", f, err)
			}
		}
		var buf bytes.Buffer
		if err := WriteJUnit(&buf, r); err != nil {
			t.Fatal(err)
		}
		if _, err := parseJUnit(buf.Bytes()); err != nil {
			t.Fatalf("JUnit output does not parse: %v", err)
		}
	})
}
