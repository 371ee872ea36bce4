package payments

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestReadPayment: a duplicate member is refused rather than resolved by
// "last value wins", which would let two readers of one body disagree.
func TestReadPayment(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		body string
		ok   bool
	}{
		{`{"amount":100,"currency":"EUR"}`, true},
		{` {"currency":"EUR", "amount":100} `, true},
		{`{"amount":100,"currency":"EUR","amount":1}`, false},
		{`{"amount":100,"currency":"EUR","currency":"USD"}`, false},
		{`{"amount":100,"currency":"EUR","amount":100}`, false},
		{`{"amount":100,"currency":"EUR"} {}`, false},
		{`{"amount":100,"currency":"EUR","x":{}}`, false},
		{`{"amount":100}`, false},
		{`[]`, false},
	} {
		r := httptest.NewRequest(http.MethodPost, "/v1/payments", strings.NewReader(c.body))
		p, err := readPayment(httptest.NewRecorder(), r)
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, errBody)) {
			t.Errorf("readPayment(%s) = %+v, %v; want ok=%v", c.body, p, err, c.ok)
		}
	}
}

func TestDuplicateMember(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{`{"a":1,"b":2}`, ""},
		{`{"a":1,"a":2}`, "a"},
		{`{"a":{"b":1},"c":[{"b":1},{"b":2}]}`, ""},
		{`{"a":{"b":1,"b":2}}`, "b"},
		{`[{"x":"a","a":1,"x":0}]`, "x"},
		{`{"a":"b","b":"a"}`, ""},
		{`{"a":1,`, ""},
	} {
		if got := duplicateMember([]byte(c.in)); got != c.want {
			t.Errorf("duplicateMember(%s) = %q; want %q", c.in, got, c.want)
		}
	}
}
