package broker

import (
	"cmp"
	"errors"
	"fmt"
	"time"
)

// Kind names what an Event records.
type Kind string

// The kinds of event. An acknowledgement's kind is the one the consumer
// sent on the message's ack subject (JetStream's ack protocol: +ACK,
// -NAK, +TERM, +WPI).
const (
	Published    Kind = "published"     // resilcheck stored the message in the stream
	Acked        Kind = "ack"           // the consumer acknowledged it: done (+ACK, or +NXT: ack and ask for the next)
	Nacked       Kind = "nak"           // the consumer asked for it again
	Terminated   Kind = "term"          // the consumer asked never to see it again
	InProgress   Kind = "in-progress"   // the consumer asked for more time
	DeadLettered Kind = "dead-lettered" // a message reached the dead-letter subject
	GaveUp       Kind = "gave-up"       // the broker stopped delivering it: MaxDeliver reached
	Emitted      Kind = "emitted"       // the service published an event of its own (the outbox)
)

// Event is one thing the broker journal saw.
type Event struct {
	At   time.Time
	Kind Kind
	// Consumer is the durable consumer an acknowledgement was for; "" for
	// the other kinds.
	Consumer string
	// Seq is the message's sequence in the stream; 0 for a dead-lettered
	// copy, which is a message of its own.
	Seq uint64
	// Delivered is which delivery of the message an acknowledgement
	// answered (1 = the first), or, for GaveUp, how many there were.
	Delivered int
	// MsgID is the message's Nats-Msg-Id: the header of a publish or a
	// dead-lettered copy, and for an acknowledgement the id of the message
	// it answers, where the journal knows it.
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
		return fmt.Sprintf("%s dead-lettered %q", at, cmp.Or(e.MsgID, string(e.Body)))
	case Emitted:
		return fmt.Sprintf("%s emitted %q", at, cmp.Or(e.MsgID, string(e.Body)))
	}
	return fmt.Sprintf("%s %s of message %d, delivery %d", at, e.Kind, e.Seq, e.Delivered)
}

// DupWindow is how long after a publish the broker drops a second
// publish of the same Nats-Msg-Id: nats-server's least duplicate window,
// so the queue suite can deliver the same id again as a publisher
// re-sending after the window would. The server forgets ids on a timer,
// so one may stay known somewhat past it.
const DupWindow = 100 * time.Millisecond

// ErrDuplicate matches the error of a publish the broker dropped as a
// duplicate: an id published within DupWindow, or a little after.
var ErrDuplicate = errors.New("duplicate message id")
