package natsbroker

import (
	"testing"

	"github.com/resilcheck/resilcheck/broker"
)

func TestParseAck(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want ackInfo
		ok   bool
	}{
		{"$JS.ACK.ORDERS.worker.2.17.5.1700000000000000000.0", ackInfo{"ORDERS", "worker", 2, 17}, true},
		{"$JS.ACK.hub.ACCHASH.ORDERS.worker.3.9.4.1700000000000000000.0.rand", ackInfo{"ORDERS", "worker", 3, 9}, true},
		{"$JS.ACK.hub.ACCHASH.ORDERS.worker.3.9.4.1700000000000000000.0", ackInfo{"ORDERS", "worker", 3, 9}, true},
		{"$JS.ACK.ORDERS.worker.3.9.4.1700000000000000000.0.x", ackInfo{}, false},
		{"_INBOX.abc", ackInfo{}, false},
		{"$JS.ACK.ORDERS.worker.x.17.5.1.0", ackInfo{}, false},
	} {
		got, ok := parseAck(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("parseAck(%q) = %+v, %v; want %+v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestAckKind(t *testing.T) {
	for in, want := range map[string]broker.Kind{
		"": broker.Acked, "+ACK": broker.Acked, "+NXT": broker.Acked, `+NXT {"batch":1}`: broker.Acked,
		"-NAK": broker.Nacked, `-NAK {"delay":200000000}`: broker.Nacked, "+TERM": broker.Terminated,
		"+TERM poison": broker.Terminated, "+WPI": broker.InProgress, "hello": "",
	} {
		if got := ackKind([]byte(in)); got != want {
			t.Errorf("ackKind(%q) = %q, want %q", in, got, want)
		}
	}
}
