package faults

import (
	"net/http"
	"strings"
	"testing"
)

// TestHeaderPicker_redactsCredentials: both journal paths (net/http's
// header and the lean path's fields) keep a credential's scheme and a
// fingerprint, never the credential.
func TestHeaderPicker_redactsCredentials(t *testing.T) {
	t.Parallel()
	hp := newHeaderPicker([]string{"Authorization", "Cookie", "X-Account"})
	viaHeader := hp.pick(http.Header{"Authorization": {"Bearer s3cret"}, "Cookie": {"sid=s3cret"}, "X-Account": {"acme"}})
	viaFields := hp.pickFields([]field{
		{name: []byte("authorization"), value: []byte("Bearer s3cret")},
		{name: []byte("Cookie"), value: []byte("sid=s3cret")},
		{name: []byte("X-Account"), value: []byte("acme")},
	}, nil, false)
	for _, m := range []map[string]string{viaHeader, viaFields} {
		if a := m["Authorization"]; strings.Contains(a, "s3cret") || !strings.HasPrefix(a, "Bearer redacted:") {
			t.Errorf("Authorization journaled as %q", a)
		}
		if c := m["Cookie"]; strings.Contains(c, "s3cret") || !strings.HasPrefix(c, "redacted:") {
			t.Errorf("Cookie journaled as %q", c)
		}
		if m["X-Account"] != "acme" {
			t.Errorf("X-Account journaled as %q, want acme", m["X-Account"])
		}
	}
	if viaHeader["Authorization"] != viaFields["Authorization"] {
		t.Errorf("the two paths disagree: %q vs %q", viaHeader["Authorization"], viaFields["Authorization"])
	}
	other := hp.pick(http.Header{"Authorization": {"Bearer other"}})
	if other["Authorization"] == viaHeader["Authorization"] {
		t.Error("two credentials share a fingerprint")
	}
}
