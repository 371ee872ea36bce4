package payments

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

// TestVerifyDelivery judges deliveries of the Standard Webhooks Go
// library's test vector at a fixed now, correct and with each defect
// that skips a step.
func TestVerifyDelivery(t *testing.T) {
	t.Parallel()
	key, _ := base64.StdEncoding.DecodeString("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	const (
		id   = "msg_p5jXN8AQM9LWM0D4loKWxJek"
		ts   = "1614265330"
		sig  = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
		body = `{"test": 2432232314}`
	)
	at := time.Unix(1614265330, 0)
	bad := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OA="
	for _, tc := range []struct {
		name   string
		sig    string // "-" sends none
		now    time.Time
		defect defect.Name
		ok     bool
	}{
		{"vector", sig, at, "", true},
		{"rotated keys, one good", "v1a,xyz v1,AAAA " + sig, at, "", true},
		{"4m59s late", sig, at.Add(4*time.Minute + 59*time.Second), "", true},
		{"5m1s late", sig, at.Add(5*time.Minute + time.Second), "", false},
		{"5m1s early", sig, at.Add(-5*time.Minute - time.Second), "", false},
		{"bad signature", bad, at, "", false},
		{"no signature", "-", at, "", false},
		{"raw secret refuses the vector", sig, at, defect.WebhookRawSecret, false},
		{"any signature takes a bad one", bad, at, defect.WebhookAnySignature, true},
		{"any signature still needs one", "-", at, defect.WebhookAnySignature, false},
		{"unsigned takes none", "-", at, defect.WebhookUnsigned, true},
		{"unsigned still checks one", bad, at, defect.WebhookUnsigned, false},
		{"no tolerance takes an old one", sig, at.Add(time.Hour), defect.WebhookNoTolerance, true},
		{"no tolerance still checks the signature", bad, at.Add(time.Hour), defect.WebhookNoTolerance, false},
	} {
		hd := http.Header{"Webhook-Id": {id}, "Webhook-Timestamp": {ts}}
		if tc.sig != "-" {
			hd.Set("Webhook-Signature", tc.sig)
		}
		err := verifyDelivery(key, hd, []byte(body), tc.now, defect.Set{tc.defect: tc.defect != ""})
		if (err == nil) != tc.ok || err != nil && !strings.Contains(err.Error(), "not verified") {
			t.Errorf("%s: verifyDelivery = %v; want ok %v", tc.name, err, tc.ok)
		}
	}
}
