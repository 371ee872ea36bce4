package reports

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Writer renders a report in one format. It only reads r, so one report may
// be written by several writers at once; w is not closed.
type Writer func(w io.Writer, r *Report) error

// ErrUnknownFormat is wrapped by WriterFor and ParseFormats for a format name
// that has no writer.
var ErrUnknownFormat = errors.New("reports: unknown format")

// format ties a writer to the file WriteDir gives it ("" for console, which
// goes to a stream instead).
type format struct {
	write Writer
	file  string
}

var formats = map[string]format{
	"console": {WriteConsole, ""},
	"json":    {WriteJSON, "report.json"},
	"junit":   {WriteJUnit, "junit.xml"},
	"md":      {WriteMarkdown, "summary.md"},
	"html":    {WriteHTML, "report.html"},
}

// Writers returns the format names in their documented order:
// console, json, junit, md, html.
func Writers() []string { return []string{"console", "json", "junit", "md", "html"} }

// WriterFor returns the writer for a format name, or an error wrapping
// ErrUnknownFormat that lists the known names.
func WriterFor(name string) (Writer, error) {
	f, ok := formats[name]
	if !ok {
		return nil, unknownFormat(name)
	}
	return f.write, nil
}

// FileName returns the file WriteDir writes a format to: report.json,
// junit.xml, summary.md, report.html; "" for console or an unknown name.
func FileName(name string) string { return formats[name].file }

// ParseFormats splits a comma-separated list such as "console,json,html",
// dropping blanks and duplicates and keeping the first-seen order.
func ParseFormats(list string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" || seen[f] {
			continue
		}
		if _, ok := formats[f]; !ok {
			return nil, unknownFormat(f)
		}
		seen[f] = true
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: empty format list (want some of %s)", ErrUnknownFormat, strings.Join(Writers(), ","))
	}
	return out, nil
}

func unknownFormat(name string) error {
	return fmt.Errorf("%w %q (want one of %s)", ErrUnknownFormat, name, strings.Join(Writers(), ", "))
}

// WriteDir creates dir if needed and writes each file format in formats to
// its FileName inside it, replacing each file atomically. "console" is
// skipped: the caller writes it to a stream with WriteConsole.
func WriteDir(dir string, r *Report, formatNames []string) error {
	for _, name := range formatNames {
		if _, err := WriterFor(name); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	for _, name := range formatNames {
		f := formats[name]
		if f.file == "" {
			continue
		}
		if err := writeFile(filepath.Join(dir, f.file), r, f.write); err != nil {
			return err
		}
	}
	return nil
}

// writeFile writes r in one format to path, atomically (see WriteFileAtomic).
func writeFile(path string, r *Report, write Writer) error {
	return WriteFileAtomic(path, func(w io.Writer) error { return write(w, r) })
}

// WriteFileAtomic writes path through a temporary file in the same directory
// and renames it into place, so a reader or an interrupted run sees the old
// file or the whole new one, never a half-written one; the temporary file is
// removed on every error.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("reports: write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	return nil
}
