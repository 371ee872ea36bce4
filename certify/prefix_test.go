package certify

import (
	"bytes"
	"strings"
	"testing"
)

func TestLinePrefixer_Write(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	p := newLinePrefixer(&out, "[copy 2] ")
	for _, chunk := range []string{"listening on :80", "81\nready\n", "half"} {
		if n, err := p.Write([]byte(chunk)); err != nil || n != len(chunk) {
			t.Fatalf("Write(%q) = %d, %v", chunk, n, err)
		}
	}
	if got, want := out.String(), "[copy 2] listening on :8081\n[copy 2] ready\n"; got != want {
		t.Errorf("wrote %q; want %q (the unfinished line waits)", got, want)
	}
	long := strings.Repeat("x", maxPending+10)
	_, _ = p.Write([]byte(long))
	if !strings.Contains(out.String(), "[copy 2] half"+"x") {
		t.Errorf("a line longer than %d bytes without a newline was held back", maxPending)
	}
}
