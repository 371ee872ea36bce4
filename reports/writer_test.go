package reports

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestParseFormats(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{"console", []string{"console"}, false},
		{" html, json,html,,md ", []string{"html", "json", "md"}, false},
		{"console,json,junit,md,html", Writers(), false},
		{"pdf", nil, true},
		{"json,xml", nil, true},
		{"", nil, true},
		{" , ", nil, true},
	}
	for _, c := range cases {
		got, err := ParseFormats(c.in)
		if (err != nil) != c.wantErr || !slices.Equal(got, c.want) {
			t.Errorf("ParseFormats(%q) = %v, %v; want %v, error %v", c.in, got, err, c.want, c.wantErr)
		}
		if err != nil && !errors.Is(err, ErrUnknownFormat) {
			t.Errorf("ParseFormats(%q) error %v does not wrap ErrUnknownFormat", c.in, err)
		}
	}
}

func TestWriterFor(t *testing.T) {
	t.Parallel()
	for _, f := range Writers() {
		if w, err := WriterFor(f); err != nil || w == nil {
			t.Errorf("WriterFor(%q) = %v, %v", f, w, err)
		}
	}
	if _, err := WriterFor("yaml"); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("WriterFor(yaml) error %v; want ErrUnknownFormat", err)
	}
}

func TestWriteDir(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "out", "nested")
	rep := fixture()
	if err := WriteDir(dir, rep, Writers()); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{"junit.xml", "report.html", "report.json", "summary.md"} // console goes to a stream; no temp files left
	if !slices.Equal(names, want) {
		t.Errorf("WriteDir wrote %v; want %v", names, want)
	}
	f, err := os.Open(filepath.Join(dir, FileName("json")))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	if diff := reportDiff(rep, got); diff != "" {
		t.Errorf("report.json differs from the report: %s", diff)
	}
	if err := WriteDir(dir, rep, []string{"json", "pdf"}); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("WriteDir with pdf: error %v; want ErrUnknownFormat before writing", err)
	}
	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteDir(blocked, rep, []string{"json"}); err == nil {
		t.Errorf("WriteDir into a regular file succeeded")
	}
}
