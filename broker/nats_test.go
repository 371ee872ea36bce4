package broker

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestNATS_journal drives a real consumer over TCP and checks the journal
// sees what crossed the server: a nak, the ack of the redelivery, a
// duplicate publish refused, and a dead-lettered copy.
func TestNATS_journal(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	b, err := StartNATS(ctx, Config{Subject: "orders.created", Stream: "ORDERS", Consumer: "worker", AckWait: 500 * time.Millisecond, MaxDeliver: 3, DeadLetter: "orders.dead"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	nc, err := nats.Connect(b.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	cons, err := js.Consumer(ctx, "ORDERS", "worker")
	if err != nil {
		t.Fatal(err)
	}
	seq, err := b.Publish(ctx, "k-1", []byte(`{"amount":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Publish(ctx, "k-1", []byte(`{"amount":1}`)); err == nil {
		t.Error("a publish inside the duplicate window was not refused")
	}
	m, err := cons.Next(jetstream.FetchMaxWait(5 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	_ = m.Nak()
	m, err = cons.Next(jetstream.FetchMaxWait(5 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.DoubleAck(ctx); err != nil {
		t.Fatal(err)
	}
	dl := nats.NewMsg("orders.dead")
	dl.Header.Set(nats.MsgIdHdr, "k-1")
	if err := nc.PublishMsg(dl); err != nil {
		t.Fatal(err)
	}
	_ = nc.Flush()
	// The journal's connection receives asynchronously: poll, bounded.
	var events []Event
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if events = b.Events(); len(events) >= 4 {
			break
		}
	}
	var kinds []Kind
	for _, e := range events {
		kinds = append(kinds, e.Kind)
		if e.Kind != DeadLettered && e.Seq != seq {
			t.Errorf("event %v: seq %d, want %d", e, e.Seq, seq)
		}
		if e.MsgID != "k-1" {
			t.Errorf("event %v: id %q, want k-1", e, e.MsgID)
		}
	}
	want := []Kind{Published, Nacked, Acked, DeadLettered}
	if !equalKinds(kinds, want) {
		t.Errorf("journal %v, want %v", kinds, want)
	}
}

func equalKinds(a, b []Kind) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestParseAck(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want ackInfo
		ok   bool
	}{
		{"$JS.ACK.ORDERS.worker.2.17.5.1700000000000000000.0", ackInfo{"ORDERS", "worker", 2, 17}, true},
		{"$JS.ACK.hub.ACCHASH.ORDERS.worker.3.9.4.1700000000000000000.0.rand", ackInfo{"ORDERS", "worker", 3, 9}, true},
		{"_INBOX.abc", ackInfo{}, false},
		{"$JS.ACK.ORDERS.worker.x.17.5.1.0", ackInfo{}, false},
	} {
		got, ok := parseAck(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("parseAck(%q) = %+v, %v; want %+v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
