package reports

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "update testdata/*.golden.* files")

// golden compares got with testdata/<test name>.golden.<ext>, rewriting the
// file instead under -update.
func golden(t *testing.T, ext string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", strings.ReplaceAll(t.Name(), "/", "_")+".golden."+ext)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./reports -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run go test ./reports -update after checking):\n%s", path, firstDiff(want, got))
	}
}

// firstDiff shows the first differing line, enough to start looking.
func firstDiff(want, got []byte) string {
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\nwant: %s\ngot:  %s", i+1, w, g)
		}
	}
	return "(no line differs)"
}

var goldenExt = map[string]string{"console": "txt", "json": "json", "junit": "xml", "md": "md", "html": "html"}

func TestWriters_Golden(t *testing.T) {
	t.Parallel()
	fixtures := []struct {
		name string
		rep  *Report
	}{{"full", fixture()}, {"interrupted", interruptedFixture()},
		{"gated", gatedFixture()}, {"aborted", abortedFixture()}}
	for _, format := range Writers() {
		for _, f := range fixtures {
			t.Run(format+"/"+f.name, func(t *testing.T) {
				t.Parallel()
				w, err := WriterFor(format)
				if err != nil {
					t.Fatal(err)
				}
				var a, b bytes.Buffer
				if err := w(&a, f.rep); err != nil {
					t.Fatalf("%s writer: %v", format, err)
				}
				if err := w(&b, f.rep); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
					t.Fatalf("%s writer is not deterministic (err %v)", format, err)
				}
				golden(t, goldenExt[format], a.Bytes())
			})
		}
	}
}
