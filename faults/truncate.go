package faults

import (
	"errors"
	"io"
)

// Truncate relays the response headers and the first Bytes of the body,
// then cuts the connection (Mode "close", the default, or "reset"), so the
// client sees a response shorter than announced. Bodies no longer than
// Bytes pass whole.
type Truncate struct {
	Bytes int64  `attr:"bytes"`
	Mode  string `attr:"mode"`
}

var _ Fault = Truncate{}
var _ Validator = Truncate{}

func init() { Register("truncate", func() Fault { return new(Truncate) }) }

// Validate checks the byte count and mode.
func (f Truncate) Validate() error {
	if f.Bytes < 0 {
		return errors.New("bytes must not be negative")
	}
	if f.Mode != "" && f.Mode != "close" && f.Mode != "reset" {
		return errors.New(`mode: want close or reset`)
	}
	return nil
}

// Inject forwards and relays a cut answer.
func (f Truncate) Inject(ex *Exchange) error {
	resp, err := ex.Forward()
	if err != nil {
		return err
	}
	return ex.ReplyWith(resp, f.copy)
}

func (f Truncate) copy(ex *Exchange, dst io.Writer, src io.Reader) error {
	if _, err := io.CopyN(dst, src, f.Bytes); err != nil {
		if err == io.EOF {
			return nil
		}
		return err
	}
	// One more byte tells whether there was anything left to cut.
	var probe [1]byte
	if n, _ := io.ReadFull(src, probe[:]); n == 0 {
		return nil
	}
	return ex.Lose(LoseMode(f.Mode))
}
