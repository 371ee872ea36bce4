package matrix

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/resilcheck/resilcheck/reports"
)

// Files the matrix is written as, in its output directory.
const (
	JSONFile     = "matrix.json"
	MarkdownFile = "matrix.md"
	HTMLFile     = "matrix.html"
)

// Write writes m into dir as JSON, Markdown and one self-contained HTML
// page, each file replaced whole.
func Write(dir string, m *Matrix) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("matrix: %w", err)
	}
	for _, f := range []struct {
		name  string
		write func(io.Writer, *Matrix) error
	}{{JSONFile, WriteJSON}, {MarkdownFile, WriteMarkdown}, {HTMLFile, WriteHTML}} {
		if err := reports.WriteFileAtomic(filepath.Join(dir, f.name), func(w io.Writer) error { return f.write(w, m) }); err != nil {
			return fmt.Errorf("matrix: %s: %w", f.name, err)
		}
	}
	return nil
}

// WriteJSON writes m as indented JSON.
func WriteJSON(w io.Writer, m *Matrix) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}
