package targets

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

func TestWebhooks_Key(t *testing.T) {
	t.Setenv("RESILCHECK_TEST_WEBHOOK_SECRET", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	for _, tc := range []struct {
		name string
		w    Webhooks
		n    int    // key bytes
		err  string // a part of the error; "" = none
	}{
		{"vector", Webhooks{Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}, 24, ""},
		{"from env", Webhooks{SecretEnv: "RESILCHECK_TEST_WEBHOOK_SECRET"}, 24, ""},
		{"env unset", Webhooks{SecretEnv: "RESILCHECK_TEST_WEBHOOK_UNSET"}, 0, "is not set"},
		{"no prefix", Webhooks{Secret: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}, 0, "does not start with whsec_"},
		{"not base64", Webhooks{Secret: "whsec_not base64!"}, 0, "not base64"},
		{"short", Webhooks{Secret: "whsec_dG9vIHNob3J0"}, 0, "decodes to 9 bytes"},
		{"long", Webhooks{Secret: "whsec_" + strings.Repeat("QUFB", 22)}, 0, "decodes to 66 bytes"},
	} {
		k, err := tc.w.Key()
		switch {
		case tc.err == "" && (err != nil || len(k) != tc.n):
			t.Errorf("%s: Key() = %d bytes, %v; want %d bytes", tc.name, len(k), err, tc.n)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: Key() error = %v; want one saying %q", tc.name, err, tc.err)
		}
	}
}

// TestParse_webhooks: a receiver spec parses with its defaults: the
// standard scheme and the probe's method and count.
func TestParse_webhooks(t *testing.T) {
	t.Parallel()
	src := "service: {url: http://127.0.0.1:1}\noperations: [{name: pay, path: /pay}]\neffects: {probe: {url: '/count?key={{.Key}}'}}\n" +
		"webhooks:\n  path: /hooks\n  secret: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n  effects: {probe: {url: '/hooks/{{.Key}}'}}\n"
	tg, err := Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	w := tg.Webhooks
	if w.Scheme != SchemeStandard || w.Effects.Probe.Method != "GET" || w.Effects.Probe.Count != "$" || !w.Declared() {
		t.Errorf("webhooks = %+v", w)
	}
}

// TestParse_initWebhooks uncomments init.yaml's webhooks section: the
// example a new user edits must itself be a valid receiver.
func TestParse_initWebhooks(t *testing.T) {
	t.Setenv("WEBHOOK_SECRET", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	data, err := os.ReadFile("init.yaml")
	if err != nil {
		t.Fatal(err)
	}
	i := regexp.MustCompile(`(?m)^# webhooks:\n(#.*\n)*`).FindIndex(data)
	if i == nil {
		t.Fatal("init.yaml has no commented webhooks section")
	}
	section := regexp.MustCompile(`(?m)^# ?`).ReplaceAll(data[i[0]:i[1]], nil)
	tg, err := Parse("init.yaml", append(append(append([]byte{}, data[:i[0]]...), section...), data[i[1]:]...))
	if err != nil {
		t.Fatalf("init.yaml with its webhooks uncommented: %v\n%s", err, section)
	}
	if w := tg.Webhooks; w.Path != "/v1/webhooks" || w.SecretEnv != "WEBHOOK_SECRET" || w.Effects.Probe.Count != "$.count" {
		t.Errorf("decoded webhooks %+v", w)
	}
}
