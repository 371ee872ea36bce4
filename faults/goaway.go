package faults

// GoAway forwards the request and relays its answer, then ends the client's
// connection gracefully: over HTTP/2 the server sends GOAWAY (NO_ERROR)
// naming the streams it has taken, finishes those and closes; over HTTP/1.1
// the answer carries "Connection: close". The client must open a new
// connection for its next request; nothing in flight is lost.
type GoAway struct{}

var _ Fault = GoAway{}

func init() { Register("goaway", func() Fault { return new(GoAway) }) }

// Inject passes the exchange and closes the connection after it.
func (GoAway) Inject(ex *Exchange) error {
	ex.CloseAfter()
	return ex.Pass()
}
