package targets

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"text/template"
)

func TestOperation_Render(t *testing.T) {
	t.Parallel()
	tg, err := Load("testdata/good/process.yaml")
	if err != nil {
		t.Fatal(err)
	}
	op := tg.Operations[0]
	v := RequestValues{Key: "k1", Amount: 250, Tenant: "t", Seq: 3}
	req, err := op.Render(v, false)
	if err != nil {
		t.Fatal(err)
	}
	alt, err := op.Render(v, true)
	if err != nil {
		t.Fatal(err)
	}
	if string(req.Body) != `{"amount": 250, "currency": "EUR"}` || string(alt.Body) != `{"amount": 251, "currency": "EUR"}` ||
		req.Method != "POST" || req.Path != "/v1/payments" || req.Header.Get("Content-Type") != "application/json" {
		t.Errorf("Render = %+v / %s", req, alt.Body)
	}
	u, _, err := tg.Effects.Probe.RenderURL("http://127.0.0.1:1/", v)
	if err != nil || u != "http://127.0.0.1:1/v1/payments?key=k1" {
		t.Errorf("RenderURL = %q, %v", u, err)
	}
	argv, env, err := tg.Process.Render(ProcessValues{Port: 7, TempDir: "/tmp/x", Dependencies: map[string]string{"processor": "http://p"}})
	if err != nil || !slices.Equal(argv, []string{"./bin/payments", "--listen", "127.0.0.1:7", "--processor-url", "http://p"}) ||
		env["STORE"] != "sqlite:/tmp/x/payments.db" {
		t.Errorf("Process.Render = %q, %v, %v", argv, env, err)
	}
}

func TestOperation_Succeeded(t *testing.T) {
	t.Parallel()
	cases := []struct {
		success []int
		status  int
		want    bool
	}{
		{nil, 200, true}, {nil, 204, true}, {nil, 409, false}, {[]int{201}, 200, false}, {[]int{200, 201}, 201, true},
	}
	for _, c := range cases {
		if got := (Operation{Success: c.success}).Succeeded(c.status); got != c.want {
			t.Errorf("Operation{Success: %v}.Succeeded(%d) = %t; want %t", c.success, c.status, got, c.want)
		}
	}
}

// A cached template renders what a fresh parse does, in parallel too, and
// a text that fails to parse fails every time, uncached.
func TestRender_cachedTemplates(t *testing.T) {
	t.Parallel()
	text := `{"amount": {{.Amount}}, "key": "{{.Key}}"}`
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for n := range 50 {
				v := RequestValues{Key: fmt.Sprint("k", i), Amount: n}
				got, err := render(text, v)
				want, werr := renderParsing(text, v)
				if err != nil || werr != nil || got != want {
					t.Errorf("render = %q, %v; a fresh parse gives %q, %v", got, err, want, werr)
					return
				}
			}
		})
	}
	wg.Wait()
	for range 2 {
		if _, err := render(`{{.Amount`, RequestValues{}); err == nil || !strings.HasPrefix(err.Error(), "bad template: ") {
			t.Fatalf("render of a bad template: %v", err)
		}
	}
	if _, err := render(`{{.Nope}}`, RequestValues{}); err == nil || !strings.HasPrefix(err.Error(), "rendering template: ") {
		t.Fatalf("render of an unknown field: %v", err)
	}
}

// renderParsing is render as it was before templates were cached.
func renderParsing(text string, data any) (string, error) {
	tmpl, err := template.New("").Option("missingkey=error").Parse(text)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, data); err != nil {
		return "", err
	}
	return b.String(), nil
}

// BenchmarkRender compares render (cached) with parsing the template on
// every call (parse), as render did before.
func BenchmarkRender(b *testing.B) {
	text := `{"amount": {{.Amount}}, "currency": "EUR"}`
	v := RequestValues{Key: "k1", Amount: 250, Tenant: "t", Seq: 3}
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			if _, err := render(text, v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parse", func(b *testing.B) {
		for b.Loop() {
			if _, err := renderParsing(text, v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
