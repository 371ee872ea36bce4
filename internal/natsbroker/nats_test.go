package natsbroker

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/resilcheck/resilcheck/broker"
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
	if _, err := b.Publish(ctx, "k-1", []byte(`{"amount":1}`)); !errors.Is(err, broker.ErrDuplicate) {
		t.Errorf("a publish inside the duplicate window: %v, want ErrDuplicate", err)
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
	// Events holds what the server sent before it: the ack and the
	// dead-lettered copy, published by a connection flushed first.
	events := b.Events()
	var kinds []broker.Kind
	for _, e := range events {
		kinds = append(kinds, e.Kind)
		if e.Kind != broker.DeadLettered && e.Seq != seq {
			t.Errorf("event %v: seq %d, want %d", e, e.Seq, seq)
		}
		if e.MsgID != "k-1" {
			t.Errorf("event %v: id %q, want k-1", e, e.MsgID)
		}
	}
	want := []broker.Kind{broker.Published, broker.Nacked, broker.Acked, broker.DeadLettered}
	if !equalKinds(kinds, want) {
		t.Errorf("journal %v, want %v", kinds, want)
	}
}

func equalKinds(a, b []broker.Kind) bool {
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

// TestStartNATS_fails: a broker asked for nothing is a plain error; one
// whose store cannot be made fails as ErrStart (certify's exit 3), and
// leaves nothing running.
func TestStartNATS_fails(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := StartNATS(ctx, Config{}); err == nil || errors.Is(err, ErrStart) {
		t.Errorf("StartNATS with no subjects: %v, want a plain error", err)
	}
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	short, cancelShort := context.WithTimeout(ctx, 2*time.Second) // bounds the wait for a server that never gets ready
	defer cancelShort()
	b, err := StartNATS(short, Config{Subject: "orders.created", Dir: file})
	if !errors.Is(err, ErrStart) || b != nil {
		t.Errorf("StartNATS on a store that is a file: %v, %v; want ErrStart and no broker", b, err)
	}
}
