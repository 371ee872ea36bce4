package payments

import (
	"encoding/base64"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

// TestSender_backoff: each wait is the declared least wait stretched by at
// most as much again, the last step repeated; sender-no-backoff waits nothing and
// sender-no-jitter exactly the least wait.
func TestSender_backoff(t *testing.T) {
	t.Parallel()
	s := newSender(SenderConfig{URL: "http://127.0.0.1:1"}, nil, nil, newLockedRand(1))
	defer s.close()
	floors := []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, 800 * time.Millisecond}
	for i := range 200 {
		n := i%4 + 1
		if w, f := s.backoff(n), floors[n-1]; w < f || w >= 2*f {
			t.Fatalf("backoff(%d) = %s; want in [%s, %s)", n, w, f, 2*f)
		}
	}
	broken := newSender(SenderConfig{URL: "http://127.0.0.1:1"}, defect.Set{defect.SenderNoBackoff: true}, nil, newLockedRand(1))
	defer broken.close()
	if w := broken.backoff(2); w != 0 {
		t.Errorf("sender-no-backoff: backoff(2) = %s; want 0", w)
	}
	fixed := newSender(SenderConfig{URL: "http://127.0.0.1:1"}, defect.Set{defect.SenderNoJitter: true}, nil, newLockedRand(1))
	defer fixed.close()
	if a, b := fixed.backoff(1), fixed.backoff(1); a != 200*time.Millisecond || b != a {
		t.Errorf("sender-no-jitter: backoff(1) = %s, %s; want 200ms both times", a, b)
	}
}

// TestSign_vector signs the Standard Webhooks Go library's test vector
// (libraries/go/webhook_test.go) with the sender's own signer.
func TestSign_vector(t *testing.T) {
	t.Parallel()
	key, err := base64.StdEncoding.DecodeString("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw") // the whsec_ secret's bytes
	if err != nil {
		t.Fatal(err)
	}
	got := sign(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", []byte(`{"test": 2432232314}`))
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Errorf("sign = %q; want %q", got, want)
	}
}
