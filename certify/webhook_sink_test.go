package certify

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestSink_keep: the sink accepts every delivery with 200 and keeps its
// body by journal digest, dropping the oldest past maxSinkBodies.
func TestSink_keep(t *testing.T) {
	t.Parallel()
	s, err := startSink()
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	resp, err := http.Post(s.url+"/hooks", "application/json", strings.NewReader(`{"id":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	sum := sha256.Sum256([]byte(`{"id":1}`))
	if b, ok := s.body(hex.EncodeToString(sum[:16])); resp.StatusCode != http.StatusOK || !ok || string(b) != `{"id":1}` {
		t.Errorf("delivery answered %d; body kept %q, %v", resp.StatusCode, b, ok)
	}
	for i := range maxSinkBodies + 1 {
		s.keep(fmt.Sprint(i), []byte("x"))
	}
	if _, ok := s.body("0"); ok {
		t.Error("the oldest body past the bound was kept")
	}
	if _, ok := s.body(fmt.Sprint(maxSinkBodies)); !ok || len(s.bodies) != maxSinkBodies {
		t.Errorf("the newest body dropped, or %d kept; want %d", len(s.bodies), maxSinkBodies)
	}
}
