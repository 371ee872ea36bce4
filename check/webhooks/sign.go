package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"time"
)

// The Standard Webhooks headers (Standard Webhooks 1.0.0, "Webhook headers").
const (
	HeaderID        = "Webhook-Id"
	HeaderTimestamp = "Webhook-Timestamp"
	HeaderSignature = "Webhook-Signature"
)

// Sign returns the Standard Webhooks signature of one delivery: "v1," and
// the base64 HMAC-SHA256, keyed by key (the decoded whsec_ secret), of
// "id.timestamp.body". It is written with crypto/hmac rather than taken from
// a webhook library, so the harness signs by the spec's text alone.
func Sign(key []byte, id string, ts time.Time, body []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + strconv.FormatInt(ts.Unix(), 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// SetHeaders puts the three Standard Webhooks headers of a delivery of body
// at ts on hd, signed with key.
func SetHeaders(hd http.Header, key []byte, id string, ts time.Time, body []byte) {
	hd.Set(HeaderID, id)
	hd.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	hd.Set(HeaderSignature, Sign(key, id, ts, body))
}
