package reports

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// voidElements need no end tag in HTML; SVG leaves close themselves with "/>".
var voidElements = map[string]bool{"meta": true, "br": true, "input": true}

// forbiddenElements would load or run something from outside the page.
// The one inline script, the filter, is checked apart.
var forbiddenElements = map[string]bool{"link": true, "img": true, "iframe": true,
	"object": true, "embed": true, "image": true, "use": true, "base": true, "source": true}

func TestWriteHTML_SelfContained(t *testing.T) {
	t.Parallel()
	hostile := fixture()
	hostile.Checks[0].Title = `<img src="https://evil.example/a.png"> "quoted" </details></svg>`
	hostile.Target.Name = `<script src="http://evil.example/x.js"></script>`
	for _, rep := range []*Report{fixture(), interruptedFixture(), hostile} {
		var buf bytes.Buffer
		if err := WriteHTML(&buf, rep); err != nil {
			t.Fatal(err)
		}
		checkSelfContained(t, buf.Bytes())
		if strings.Count(buf.String(), "<script") != 1 || strings.Contains(buf.String(), "<img") {
			t.Errorf("user text reached the page unescaped")
		}
	}
}

// checkSelfContained tokenizes page: no element or attribute may reference
// anything outside it, "http" may appear only in text, and every non-void
// element must be closed in order.
func checkSelfContained(t *testing.T, page []byte) {
	t.Helper()
	z := html.NewTokenizer(bytes.NewReader(page))
	var stack []string
	scripts, csp := 0, false
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF {
				t.Fatalf("tokenize: %v", z.Err())
			}
			break
		}
		tok := z.Token()
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			if forbiddenElements[tok.Data] {
				t.Errorf("page has a <%s> element", tok.Data)
			}
			if tok.Data == "script" {
				scripts++
			}
			if tok.Data == "meta" && slices.Contains(tok.Attr, html.Attribute{Key: "http-equiv", Val: "Content-Security-Policy"}) {
				csp = slices.Contains(tok.Attr, html.Attribute{Key: "content",
					Val: "default-src 'none'; style-src 'unsafe-inline'; script-src '" + filterHash + "'"})
			}
			for _, a := range tok.Attr {
				v := strings.ToLower(a.Val)
				if a.Key == "src" || a.Key == "xlink:href" || (a.Key == "href" && !strings.HasPrefix(v, "#")) ||
					strings.Contains(v, "http:") || strings.Contains(v, "https:") || strings.Contains(v, "url(") {
					t.Errorf("<%s %s=%q> references something outside the page", tok.Data, a.Key, a.Val)
				}
			}
			if tt == html.StartTagToken && !voidElements[tok.Data] {
				stack = append(stack, tok.Data)
			}
		case html.EndTagToken:
			if len(stack) == 0 || stack[len(stack)-1] != tok.Data {
				t.Fatalf("</%s> closes %v", tok.Data, stack)
			}
			stack = stack[:len(stack)-1]
		case html.TextToken:
			if len(stack) > 0 && stack[len(stack)-1] == "script" && tok.Data != string(filterJS) {
				t.Errorf("the inline script is not the filter its policy hash allows")
			}
			if len(stack) > 0 && stack[len(stack)-1] == "style" {
				css := strings.ToLower(tok.Data)
				if strings.Contains(css, "url(") || strings.Contains(css, "@import") || strings.Contains(css, "http") {
					t.Errorf("inline CSS loads something: %q", tok.Data)
				}
			}
		}
	}
	if len(stack) != 0 {
		t.Errorf("unclosed elements at end: %v", stack)
	}
	if scripts != 1 || !csp {
		t.Errorf("page has %d scripts and CSP %v; want the filter alone, allowed by hash", scripts, csp)
	}
}
