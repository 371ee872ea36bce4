package faults

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"testing/synctest"
	"time"
)

func TestJournal_RingDropsOldest(t *testing.T) {
	t.Parallel()
	j := NewJournal(WithCapacity(3))
	for i := range 5 {
		j.Record(Entry{Side: "front", Path: string(rune('a' + i))})
	}
	got := j.Snapshot()
	if len(got) != 3 || got[0].Seq != 3 || got[2].Path != "e" || j.Dropped() != 2 {
		t.Fatalf("snapshot %+v dropped %d", got, j.Dropped())
	}
	if after := j.After(4); len(after) != 1 || after[0].Seq != 5 {
		t.Fatalf("After(4) = %+v", after)
	}
	if after := j.After(0); len(after) != 3 {
		t.Fatalf("After(0) after eviction = %d entries", len(after))
	}
}

func TestJournal_Filters(t *testing.T) {
	t.Parallel()
	j := NewJournal()
	t0 := time.Now()
	j.Record(Entry{Side: "front", Received: t0, Headers: map[string]string{"Idempotency-Key": "k1"}, Rule: "r"})
	j.Record(Entry{Side: "dependency", Received: t0.Add(time.Second), Headers: map[string]string{"Idempotency-Key": "k1"}})
	j.Record(Entry{Side: "dependency", Received: t0.Add(2 * time.Second), Headers: map[string]string{"Idempotency-Key": "k2"}})
	tests := []struct {
		name    string
		filters []Filter
		want    int
	}{
		{"side", []Filter{BySide("dependency")}, 2},
		{"header", []Filter{ByHeader("idempotency-key", "k1")}, 2},
		{"side+header", []Filter{BySide("dependency"), ByHeader("Idempotency-Key", "k1")}, 1},
		{"between", []Filter{Between(t0.Add(time.Second), time.Time{})}, 2},
		{"rule", []Filter{ByRule("r")}, 1},
	}
	for _, tt := range tests {
		if got := j.Snapshot(tt.filters...); len(got) != tt.want {
			t.Errorf("%s: %d entries; want %d", tt.name, len(got), tt.want)
		}
	}
}

func TestJournal_Next(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		j := NewJournal()
		got := make(chan []Entry)
		go func() {
			es, _ := j.Next(context.Background(), 0, BySide("dependency"))
			got <- es
		}()
		j.Record(Entry{Side: "front"})
		synctest.Wait()
		select {
		case es := <-got:
			t.Fatalf("woke for a filtered-out entry: %+v", es)
		default:
		}
		j.Record(Entry{Side: "dependency"})
		if es := <-got; len(es) != 1 || es[0].Seq != 2 {
			t.Fatalf("Next = %+v", es)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if _, err := j.Next(ctx, 2); err == nil {
			t.Fatal("Next returned without new entries")
		}
	})
}

func TestEntry_JSONRoundTrip(t *testing.T) {
	t.Parallel()
	j := NewJournal()
	start := j.Start()
	e := j.Record(Entry{
		ID: "front-1", Side: "front", Seed: 7, Conn: 3, Proto: "HTTP/1.1",
		Received: start.Add(time.Millisecond), Forwarded: start.Add(2 * time.Millisecond), Sent: start.Add(2500 * time.Microsecond),
		Answered: start.Add(3 * time.Millisecond), Finished: start.Add(4 * time.Millisecond),
		ClientGone: start.Add(5 * time.Millisecond), Method: "POST", Path: "/p", Query: "a=1",
		Headers: map[string]string{"Idempotency-Key": "k"}, Status: 200,
		ResponseHeaders: map[string]string{"Retry-After": "1"}, BytesIn: 1, BytesOut: 2, BodySHA256: "ab",
		Rule: "r", Fault: "abort", UpstreamCalls: 2, UpstreamStatuses: []int{200, 0}, UpstreamGRPCStatuses: []int{14, -1},
		Outcome: OutcomeFaulted, Error: "x",
	})
	var buf bytes.Buffer
	if err := j.WriteJSONLines(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := ReadJSONLines(&buf)
	if err != nil || len(got) != 1 {
		t.Fatal(got, err)
	}
	g := got[0]
	if g.Offset(g.ClientGone) != 5*time.Millisecond || g.Offset(g.Received) != time.Millisecond || !g.Forwarded.Equal(e.Forwarded) {
		t.Fatalf("times: %+v", g)
	}
	for _, tm := range []*time.Time{&g.Start, &g.Received, &g.Forwarded, &g.Sent, &g.Answered, &g.Finished, &g.ClientGone, &e.Start, &e.Received, &e.Forwarded, &e.Sent, &e.Answered, &e.Finished, &e.ClientGone} {
		*tm = tm.Round(0).UTC()
	}
	if !reflect.DeepEqual(g, e) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", g, e)
	}
}

// journalForBench records n entries shaped like a certification's: headers,
// response headers with characters JSON escapes, and every time set.
func journalForBench(n int) *Journal {
	j := NewJournal(WithCapacity(n))
	start := j.Start()
	for i := range n {
		at := start.Add(time.Duration(i) * time.Millisecond)
		j.Record(Entry{
			ID: "front-" + string(rune('a'+i%26)), Side: "front", Seed: 7, Conn: uint64(i), Proto: "HTTP/1.1",
			Received: at, Forwarded: at.Add(time.Millisecond), Answered: at.Add(2 * time.Millisecond), Finished: at.Add(3 * time.Millisecond),
			Method: "POST", Path: "/payments", Query: "a=1&b=<2>",
			Headers:         map[string]string{"Idempotency-Key": "k-1", "X-Tenant": "t&1", "Content-Type": "application/json"},
			Status:          201,
			ResponseHeaders: map[string]string{"Ratelimit": `"default";r=9;t=1`, "Ratelimit-Policy": `"default";q=10;w=1`, "Content-Type": "application/json"},
			BytesIn:         40, BytesOut: 80, BodySHA256: "0123456789abcdef", UpstreamCalls: 1, UpstreamStatuses: []int{201}, Outcome: OutcomePassed,
		})
	}
	return j
}

// writeJSONLinesViaMarshaler is how WriteJSONLines encoded entries before it
// encoded their wire form directly: through Entry.MarshalJSON, whose output
// encoding/json then validates and compacts again.
func writeJSONLinesViaMarshaler(w *bytes.Buffer, entries []Entry) error {
	enc := json.NewEncoder(w)
	for i := range entries {
		if err := enc.Encode(&entries[i]); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSONLines writes the bytes encoding each Entry (MarshalJSON) wrote.
func TestWriteJSONLines_SameBytesAsMarshalJSON(t *testing.T) {
	t.Parallel()
	j := journalForBench(50)
	j.Record(Entry{Side: "dependency", Error: "<reset> & \u2028 \"gone\""}) // a sparse entry, escapes
	entries := j.Snapshot()
	var got, want bytes.Buffer
	if err := WriteJSONLines(&got, entries); err != nil {
		t.Fatal(err)
	}
	if err := writeJSONLinesViaMarshaler(&want, entries); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("WriteJSONLines differs from encoding each Entry:\n got %.300s\nwant %.300s", got.Bytes(), want.Bytes())
	}
}

// BenchmarkJournal_WriteJSONLines compares encoding the wire form directly
// (direct) with encoding through Entry.MarshalJSON (marshaler), the old way.
func BenchmarkJournal_WriteJSONLines(b *testing.B) {
	entries := journalForBench(1000).Snapshot()
	var buf bytes.Buffer
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			buf.Reset()
			if err := WriteJSONLines(&buf, entries); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("marshaler", func(b *testing.B) {
		for b.Loop() {
			buf.Reset()
			if err := writeJSONLinesViaMarshaler(&buf, entries); err != nil {
				b.Fatal(err)
			}
		}
	})
}
