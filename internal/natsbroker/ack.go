package natsbroker

import (
	"strconv"
	"strings"

	"github.com/resilcheck/resilcheck/broker"
)

// ackInfo is what a JetStream ack subject says of a delivery:
// $JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>.<consumer seq>.<ns>.<pending>
// in the original form, or with a domain, an account hash and a trailing
// token ($JS.ACK.<domain>.<hash>.<stream>.<consumer>.… .<random>) in the
// newer one (nats-server's ADR-15), which has at least 11 tokens.
type ackInfo struct {
	stream, consumer string
	delivered        int
	seq              uint64
}

func parseAck(subject string) (ackInfo, bool) {
	tok := strings.Split(subject, ".")
	switch {
	case len(tok) < 9 || tok[0] != "$JS" || tok[1] != "ACK" || len(tok) == 10:
		return ackInfo{}, false
	case len(tok) >= 11:
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
func ackKind(payload []byte) broker.Kind {
	p := strings.TrimSpace(string(payload))
	switch {
	case p == "" || strings.HasPrefix(p, "+ACK") || strings.HasPrefix(p, "+NXT"):
		return broker.Acked
	case strings.HasPrefix(p, "-NAK"):
		return broker.Nacked
	case strings.HasPrefix(p, "+TERM"):
		return broker.Terminated
	case strings.HasPrefix(p, "+WPI"):
		return broker.InProgress
	}
	return ""
}
