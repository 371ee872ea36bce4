package faults

import (
	"bytes"
	"context"
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
		Received: start.Add(time.Millisecond), Forwarded: start.Add(2 * time.Millisecond),
		Answered: start.Add(3 * time.Millisecond), Finished: start.Add(4 * time.Millisecond),
		ClientGone: start.Add(5 * time.Millisecond), Method: "POST", Path: "/p", Query: "a=1",
		Headers: map[string]string{"Idempotency-Key": "k"}, Status: 200,
		ResponseHeaders: map[string]string{"Retry-After": "1"}, BytesIn: 1, BytesOut: 2, BodySHA256: "ab",
		Rule: "r", Fault: "abort", UpstreamCalls: 2, UpstreamStatuses: []int{200, 0}, Outcome: OutcomeFaulted, Error: "x",
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
	for _, tm := range []*time.Time{&g.Start, &g.Received, &g.Forwarded, &g.Answered, &g.Finished, &g.ClientGone, &e.Start, &e.Received, &e.Forwarded, &e.Answered, &e.Finished, &e.ClientGone} {
		*tm = tm.Round(0).UTC()
	}
	if !reflect.DeepEqual(g, e) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", g, e)
	}
}
