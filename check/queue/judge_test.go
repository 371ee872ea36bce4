package queue

import (
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/broker"
	"github.com/resilcheck/resilcheck/check"
)

func TestDeliveries(t *testing.T) {
	t0 := time.Unix(0, 0)
	evs := []broker.Event{
		{At: t0, Kind: broker.Published, Seq: 1},
		{At: t0.Add(time.Millisecond), Kind: broker.Nacked, Seq: 1, Delivered: 1},
		{At: t0.Add(200 * time.Millisecond), Kind: broker.InProgress, Seq: 1, Delivered: 2},
		{At: t0.Add(time.Second), Kind: broker.GaveUp, Seq: 1, Delivered: 5},
	}
	if got := deliveries(evs); got != 2 {
		t.Errorf("deliveries = %d, want 2 (a gave-up advisory is no answer)", got)
	}
	if acked(evs, 0) {
		t.Error("acked: a nak and an in-progress are no ack")
	}
	if !acked(append(evs, broker.Event{Kind: broker.Terminated, Delivered: 3}), 2) {
		t.Error("acked: a term of delivery 3 settles past delivery 2")
	}
	if acked(append(evs, broker.Event{Kind: broker.Acked, Delivered: 2}), 2) {
		t.Error("acked: an ack of delivery 2 is not past delivery 2")
	}
}

func TestSettledAt(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	dl := broker.Event{At: at(400), Kind: broker.DeadLettered}
	for _, tc := range []struct {
		name string
		evs  []broker.Event
		want int
	}{
		{"term just after the copy", []broker.Event{
			{At: at(0), Kind: broker.Nacked, Delivered: 1}, {At: at(200), Kind: broker.Nacked, Delivered: 2}, dl,
			{At: at(401), Kind: broker.Terminated, Delivered: 3}}, 3},
		{"term before the copy", []broker.Event{
			{At: at(0), Kind: broker.Nacked, Delivered: 1}, {At: at(399), Kind: broker.Terminated, Delivered: 2}, dl}, 2},
		{"a redelivery an ack wait later is not the settling answer", []broker.Event{
			{At: at(0), Kind: broker.Nacked, Delivered: 1}, dl, {At: at(1400), Kind: broker.Nacked, Delivered: 2}}, 1},
		{"no answer", []broker.Event{dl}, 0},
	} {
		if got := settledAt(tc.evs, dl.At, 500*time.Millisecond); got != tc.want {
			t.Errorf("%s: settledAt = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestCrashPoint_amount(t *testing.T) {
	re := check.AmountPattern(1234)
	for body, want := range map[string]bool{
		`{"amount":1234}`: true, `{"amount": 1234, "currency":"EUR"}`: true, `amount=1234&x=1`: true,
		`{"amount":12345}`: false, `{"amount":11234}`: false, `{"amount":12.34}`: false, `{"amount":1234.5}`: false,
	} {
		if got := re.MatchString(body); got != want {
			t.Errorf("check.AmountPattern(1234) on %s = %v, want %v", body, got, want)
		}
	}
}
