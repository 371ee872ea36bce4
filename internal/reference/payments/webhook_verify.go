package payments

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

// WebhookTolerance is how far a delivery's webhook-timestamp may be from
// now, past or future: the Standard Webhooks libraries' 5 minutes.
const WebhookTolerance = 5 * time.Minute

// errUnverified is every reason a delivery is refused before its effect.
var errUnverified = errors.New("webhook not verified")

// verifyDelivery checks a Standard Webhooks 1.0.0 delivery at now: the
// three headers are there, the timestamp is within WebhookTolerance, and
// one of the space-separated "v1," signatures is the HMAC-SHA256 of
// "id.timestamp.body" under key, compared in constant time. Written with
// crypto/hmac, independently of the harness's signer. The webhook defects
// each skip one step.
func verifyDelivery(key []byte, hd http.Header, body []byte, now time.Time, d defect.Set) error {
	id, ts, sigs := hd.Get("Webhook-Id"), hd.Get("Webhook-Timestamp"), hd.Get("Webhook-Signature")
	if id == "" || ts == "" {
		return fmt.Errorf("%w: webhook-id and webhook-timestamp are required", errUnverified)
	}
	if sigs == "" {
		if d.Has(defect.WebhookUnsigned) {
			return nil
		}
		return fmt.Errorf("%w: webhook-signature is required", errUnverified)
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: webhook-timestamp %q is not Unix seconds", errUnverified, ts)
	}
	if off := now.Sub(time.Unix(sec, 0)).Abs(); off > WebhookTolerance && !d.Has(defect.WebhookNoTolerance) {
		return fmt.Errorf("%w: webhook-timestamp is %s from now, beyond the %s tolerance", errUnverified, off.Truncate(time.Second), WebhookTolerance)
	}
	if d.Has(defect.WebhookAnySignature) {
		return nil
	}
	if d.Has(defect.WebhookRawSecret) {
		key = []byte("whsec_" + base64.StdEncoding.EncodeToString(key))
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for s := range strings.FieldsSeq(sigs) {
		b64, ok := strings.CutPrefix(s, "v1,")
		if !ok {
			continue // another scheme (v1a) or version
		}
		if got, err := base64.StdEncoding.DecodeString(b64); err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return fmt.Errorf("%w: no v1 signature matches", errUnverified)
}
