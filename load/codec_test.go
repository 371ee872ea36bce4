package load

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

func TestMerge(t *testing.T) {
	t.Parallel()
	var files []io.Reader
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, format := range Encodings {
		var buf bytes.Buffer
		enc, err := NewEncoder(format, &buf)
		if err != nil {
			t.Fatal(err)
		}
		for j := range 3 {
			r := &vegeta.Result{Attack: format, Seq: uint64(j), Code: 200, Timestamp: t0.Add(time.Duration(i*3+j) * time.Second),
				Latency: time.Millisecond, Method: "POST", URL: "http://x/"}
			if err := enc.Encode(r); err != nil {
				t.Fatal(err)
			}
		}
		files = append(files, &buf)
	}
	files = append(files, strings.NewReader("")) // an empty file adds nothing
	attacks := map[string]int{}
	m, err := Merge(func(r *vegeta.Result) { attacks[r.Attack]++ }, files...)
	if err != nil {
		t.Fatalf("Merge: %v", err)
	}
	if m.Requests != 9 || attacks["gob"] != 3 || attacks["json"] != 3 || attacks["csv"] != 3 {
		t.Fatalf("merged %d requests %v, want 9, 3 per file", m.Requests, attacks)
	}
	if _, err := Merge(nil, strings.NewReader("not results\x00\x01")); !errors.Is(err, ErrUnknownFormat) {
		t.Fatalf("junk: err %v, want ErrUnknownFormat", err)
	}
	if _, err := NewEncoder("xml", io.Discard); !errors.Is(err, ErrSpec) {
		t.Fatalf("xml: err %v", err)
	}
}
