package broker

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Kind names what an Event records.
type Kind string

// The kinds of event. An acknowledgement's kind is the one the consumer
// sent on the message's ack subject (JetStream's ack protocol: +ACK,
// -NAK, +TERM, +WPI).
const (
	Published    Kind = "published"     // resilcheck stored the message in the stream
	Acked        Kind = "ack"           // the consumer acknowledged it: done
	Nacked       Kind = "nak"           // the consumer asked for it again
	Terminated   Kind = "term"          // the consumer asked never to see it again
	InProgress   Kind = "in-progress"   // the consumer asked for more time
	DeadLettered Kind = "dead-lettered" // a message reached the dead-letter subject
	GaveUp       Kind = "gave-up"       // the broker stopped delivering it: MaxDeliver reached
)

// Event is one thing the broker journal saw.
type Event struct {
	At   time.Time
	Kind Kind
	// Seq is the message's sequence in the stream; 0 for a dead-lettered
	// copy, which is a message of its own.
	Seq uint64
	// Delivered is which delivery of the message an acknowledgement
	// answered (1 = the first), or, for GaveUp, how many there were.
	Delivered int
	// MsgID is the message's Nats-Msg-Id header, where the event carries
	// the message (a publish, a delivery, a dead-lettered copy).
	MsgID string
	// Body is a dead-lettered copy's body, which identifies the message
	// when the consumer did not keep its headers.
	Body []byte
}

func (e Event) String() string {
	at := e.At.Format("15:04:05.000")
	switch e.Kind {
	case Published:
		return fmt.Sprintf("%s published %s as stream message %d", at, e.MsgID, e.Seq)
	case DeadLettered:
		return fmt.Sprintf("%s dead-lettered %q", at, cmpOr(e.MsgID, string(e.Body)))
	}
	return fmt.Sprintf("%s %s of message %d, delivery %d", at, e.Kind, e.Seq, e.Delivered)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// ackInfo is what a JetStream ack subject says of a delivery:
// $JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>.<consumer seq>.<ns>.<pending>
// in the original form, or with a domain, an account hash and a trailing
// token ($JS.ACK.<domain>.<hash>.<stream>.<consumer>.… .<random>) in the
// newer one (nats-server's ADR-15).
type ackInfo struct {
	stream, consumer string
	delivered        int
	seq              uint64
}

func parseAck(subject string) (ackInfo, bool) {
	tok := strings.Split(subject, ".")
	if len(tok) < 9 || tok[0] != "$JS" || tok[1] != "ACK" {
		return ackInfo{}, false
	}
	if len(tok) >= 12 {
		tok = append(tok[:2:2], tok[4:]...)
	}
	d, err1 := strconv.Atoi(tok[4])
	s, err2 := strconv.ParseUint(tok[5], 10, 64)
	if err1 != nil || err2 != nil {
		return ackInfo{}, false
	}
	return ackInfo{stream: tok[2], consumer: tok[3], delivered: d, seq: s}, true
}

// ackKind maps an acknowledgement's payload to its kind; "" for one that
// is not an acknowledgement (an empty payload is +ACK by the protocol).
func ackKind(payload []byte) Kind {
	p := strings.TrimSpace(string(payload))
	switch {
	case p == "" || strings.HasPrefix(p, "+ACK"):
		return Acked
	case strings.HasPrefix(p, "-NAK"):
		return Nacked
	case strings.HasPrefix(p, "+TERM"):
		return Terminated
	case strings.HasPrefix(p, "+WPI"):
		return InProgress
	}
	return ""
}
