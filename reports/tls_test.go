package reports

import (
	"bytes"
	"strings"
	"testing"
)

// TestTLS_notIntercepted: a run whose only TLS is the front proxy verifying
// an https service made no authority and decrypted nothing of the
// target's; no format may say it intercepted TLS.
func TestTLS_notIntercepted(t *testing.T) {
	t.Parallel()
	r := fixture()
	r.TLS = &TLS{Hops: []TLSHop{{Hop: "front", Upstream: "system roots"}}}
	for name, write := range map[string]func(*bytes.Buffer) error{
		"html":     func(b *bytes.Buffer) error { return WriteHTML(b, r) },
		"markdown": func(b *bytes.Buffer) error { return WriteMarkdown(b, r) },
		"console":  func(b *bytes.Buffer) error { return WriteConsole(b, r) },
	} {
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(buf.String(), "intercepted") {
			t.Errorf("%s says TLS was intercepted by a run with no authority", name)
		}
		if !strings.Contains(buf.String(), "front: plain HTTP in; upstream TLS verified by system roots") {
			t.Errorf("%s lacks the front hop", name)
		}
	}
}
