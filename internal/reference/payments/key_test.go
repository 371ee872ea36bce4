package payments

import (
	"errors"
	"strings"
	"testing"
)

func TestParseKey(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
		err  error
	}{
		{nil, "", errKeyMissing},
		{[]string{""}, "", errKeyMissing},
		{[]string{"abc"}, "abc", nil},
		{[]string{`"abc"`}, "abc", nil},
		{[]string{`"a \"q\" \\ b"`}, `a "q" \ b`, nil},
		{[]string{"8e03978e-40d5-43e8-bc93-6894a57f9324"}, "8e03978e-40d5-43e8-bc93-6894a57f9324", nil},
		{[]string{strings.Repeat("x", 255)}, strings.Repeat("x", 255), nil},
		{[]string{strings.Repeat("x", 256)}, "", errKeyInvalid},
		{[]string{`"` + strings.Repeat("x", 256) + `"`}, "", errKeyInvalid},
		{[]string{`""`}, "", errKeyInvalid},
		{[]string{`"abc`}, "", errKeyInvalid},
		{[]string{`"a"b"`}, "", errKeyInvalid},
		{[]string{`"a\n"`}, "", errKeyInvalid},
		{[]string{"\"a\x01\""}, "", errKeyInvalid},
		{[]string{"\"\xc3\xa9\""}, "", errKeyInvalid},
		{[]string{"a b"}, "", errKeyInvalid},
		{[]string{"a,b"}, "", errKeyInvalid},
		{[]string{`"a", "b"`}, "", errKeyInvalid},
		{[]string{"a", "b"}, "", errKeyInvalid},
	} {
		got, err := parseKey(tc.in)
		if got != tc.want || !errors.Is(err, tc.err) {
			t.Errorf("parseKey(%q) = %q, %v; want %q, %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestFingerprint_Canonical(t *testing.T) {
	a := fingerprint("POST", "/v1/payments", []byte(`{"amount":1,"currency":"EUR"}`))
	if b := fingerprint("POST", "/v1/other", []byte(`{"amount":1,"currency":"EUR"}`)); a == b {
		t.Error("path not in the fingerprint")
	}
	if b := fingerprint("PUT", "/v1/payments", []byte(`{"amount":1,"currency":"EUR"}`)); a == b {
		t.Error("method not in the fingerprint")
	}
}
