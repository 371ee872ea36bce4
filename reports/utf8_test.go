package reports

import (
	"bytes"
	"encoding/json"
	"reflect"
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

// TestEscapeValue: strings are escaped wherever a report can hold them,
// arrays included, and the copy leaves the original alone.
func TestEscapeValue(t *testing.T) {
	t.Parallel()
	type holder struct {
		Arr [2]string
		Ptr *string
		Map map[string][]string
		N   int
	}
	bad := "x\xff"
	in := holder{Arr: [2]string{"ok", bad}, Ptr: &bad, Map: map[string][]string{bad: {bad}}, N: 3}
	if !valueNeedsEscape(reflect.ValueOf(in), escapeInvalid) {
		t.Fatal("valueNeedsEscape missed the malformed strings")
	}
	out := escapeValue(reflect.ValueOf(in), escapeInvalid).Interface().(holder)
	want := `x\xFF`
	if out.Arr != [2]string{"ok", want} || *out.Ptr != want || len(out.Map[want]) != 1 || out.Map[want][0] != want || out.N != 3 {
		t.Errorf("escapeValue = %+v (ptr %q); want every string %q", out, *out.Ptr, want)
	}
	if in.Arr[1] != bad || bad != "x\xff" {
		t.Errorf("escapeValue changed its input: %+v", in)
	}
}

// TestReport_escapableKinds: every kind a Report can hold is one
// escapeValue copies with its strings escaped; an interface or a func field
// would carry text past it unescaped.
func TestReport_escapableKinds(t *testing.T) {
	t.Parallel()
	seen := map[reflect.Type]bool{}
	var walk func(tp reflect.Type, path string)
	walk = func(tp reflect.Type, path string) {
		if seen[tp] {
			return
		}
		seen[tp] = true
		switch tp.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(tp.Elem(), path+"[]")
		case reflect.Map:
			walk(tp.Key(), path+"{key}")
			walk(tp.Elem(), path+"{}")
		case reflect.Struct:
			for i := range tp.NumField() {
				if f := tp.Field(i); f.IsExported() {
					walk(f.Type, path+"."+f.Name)
				}
			}
		case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		default:
			t.Errorf("Report%s is a %s, which escapeValue copies unescaped", path, tp.Kind())
		}
	}
	walk(reflect.TypeOf(Report{}), "")
}
