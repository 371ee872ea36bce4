package faults

// peekState is what a non-blocking look at a connection found.
type peekState int

const (
	peekUnknown peekState = iota // the platform cannot tell
	peekEmpty                    // open, nothing to read
	peekData                     // bytes wait to be read
	peekClosed                   // the peer closed or reset it
)
