package webhooks

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestSign_vector signs the test vector of the Standard Webhooks Go library
// (libraries/go/webhook_test.go): the spec's signature, byte for byte.
func TestSign_vector(t *testing.T) {
	t.Parallel()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, id string
		ts       int64
		body     string
		want     string
	}{
		{"vector", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, `{"test": 2432232314}`, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="},
		{"other id", "msg_p5jXN8AQM9LWM0D4loKWxJel", 1614265330, `{"test": 2432232314}`, ""},
		{"other timestamp", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265331, `{"test": 2432232314}`, ""},
		{"other body", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, `{"test": 2432232315}`, ""},
	} {
		got := Sign(key, tc.id, time.Unix(tc.ts, 0), []byte(tc.body))
		if tc.want != "" && got != tc.want {
			t.Errorf("%s: Sign = %q; want %q", tc.name, got, tc.want)
		}
		if tc.want == "" && got == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" {
			t.Errorf("%s: Sign did not change with the input", tc.name)
		}
	}
}

func TestSetHeaders(t *testing.T) {
	t.Parallel()
	hd := http.Header{}
	SetHeaders(hd, []byte("k"), "msg_1", time.Unix(1614265330, 0), []byte("{}"))
	if hd.Get("webhook-id") != "msg_1" || hd.Get("webhook-timestamp") != "1614265330" || !strings.HasPrefix(hd.Get("webhook-signature"), "v1,") {
		t.Errorf("headers = %v", hd)
	}
}
