package reports

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// malformedFixture is fixture with the bytes a harness sends on purpose:
// IK-06's key "clé-\xe9" (a lone Latin-1 byte), a header name that is not
// UTF-8, and a target's answer carrying control characters.
func malformedFixture() *Report {
	r := fixture()
	for i := range r.Checks {
		c := &r.Checks[i]
		if c.ID != "IK-10" {
			continue
		}
		c.Evidence[0].Headers = map[string]string{"Idempotency-Key": "clé-\xe9", "X-\xff\xfe": "v"}
		c.Evidence[1].Path = "/payments/\xc3"
		c.Observed = "body \x00\x1b[31mred\x1b[0m \xe9 ]]> end"
	}
	return r
}

// TestWriters_MalformedUTF8 renders a report carrying malformed bytes through
// every format: each output is valid UTF-8, shows the bytes as \xNN, and
// keeps its own syntax (HTML tokenizes and nests, JUnit decodes strictly,
// JSON reads back with the escaped key).
func TestWriters_MalformedUTF8(t *testing.T) {
	t.Parallel()
	rep := malformedFixture()
	for _, format := range Writers() {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			w, _ := WriterFor(format)
			var buf bytes.Buffer
			if err := w(&buf, rep); err != nil {
				t.Fatal(err)
			}
			out := buf.Bytes()
			if !utf8.Valid(out) {
				t.Fatalf("%s output is not valid UTF-8", format)
			}
			if !bytes.Contains(out, []byte(`xE9`)) {
				t.Errorf("%s output does not show the malformed byte as \\xE9", format)
			}
			if format != "json" && bytes.ContainsAny(out, "\x00\x1b") {
				t.Errorf("%s output carries a raw control character", format)
			}
			validSyntax(t, format, out)
		})
	}
}

func validSyntax(t *testing.T, format string, out []byte) {
	t.Helper()
	switch format {
	case "html":
		checkSelfContained(t, out)
		if _, err := html.Parse(bytes.NewReader(out)); err != nil {
			t.Errorf("html.Parse: %v", err)
		}
	case "junit":
		if _, err := parseJUnit(out); err != nil {
			t.Errorf("JUnit: %v", err)
		}
	case "json":
		if !json.Valid(out) {
			t.Fatalf("invalid JSON")
		}
		got, err := Read(bytes.NewReader(out))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range got.Checks {
			if c.ID == "IK-10" && c.Evidence[0].Headers["Idempotency-Key"] != `clé-\xE9` {
				t.Errorf("JSON key reads back as %q; want %q", c.Evidence[0].Headers["Idempotency-Key"], `clé-\xE9`)
			}
		}
	case "md":
		if n := strings.Count(string(out), "<details"); n != strings.Count(string(out), "</details>") {
			t.Errorf("Markdown opens %d <details> and closes %d", n, strings.Count(string(out), "</details>"))
		}
	}
}

func TestEscapeText(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		mode escapeMode
		want string
	}{
		{"plain ünïcode ✓", escapeControls, "plain ünïcode ✓"},
		{"clé-\xe9", escapeInvalid, `clé-\xE9`},
		{"a\x00b\tc\nd\x7f", escapeControls, `a\x00b` + "\tc\nd" + `\x7F`},
		{"a\x00b", escapeInvalid, "a\x00b"}, // JSON escapes controls itself
		{"csi \u009b", escapeControls, `csi \u009B`},
		{"\xff\xfe", escapeControls, `\xFF\xFE`},
	}
	for _, c := range cases {
		got := escapeText(c.in, c.mode)
		if got != c.want || !utf8.ValidString(got) {
			t.Errorf("escapeText(%q, %d) = %q; want %q", c.in, c.mode, got, c.want)
		}
	}
	r := malformedFixture()
	before, _ := json.Marshal(r)
	_ = escaped(r, escapeControls)
	after, _ := json.Marshal(r)
	if !bytes.Equal(before, after) {
		t.Errorf("escaped modified the report it was given")
	}
	if clean := fixture(); escaped(clean, escapeControls) != clean {
		t.Errorf("escaped copied a report that needed no escaping")
	}
}
