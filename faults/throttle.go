package faults

import (
	"errors"
	"io"
	"time"
)

// Throttle relays the response body at Rate bytes per second, in chunks of
// Chunk bytes (default Rate/10, at least 1, at most 32 KiB), flushing each.
type Throttle struct {
	Rate  int64 `attr:"rate"`
	Chunk int   `attr:"chunk"`
}

var _ Fault = Throttle{}
var _ Validator = Throttle{}

func init() { Register("throttle", func() Fault { return new(Throttle) }) }

// Validate requires a positive rate.
func (f Throttle) Validate() error {
	if f.Rate <= 0 {
		return errors.New("rate must be a positive number of bytes per second")
	}
	if f.Chunk < 0 {
		return errors.New("chunk must not be negative")
	}
	return nil
}

// Inject forwards and relays the answer slowly.
func (f Throttle) Inject(ex *Exchange) error {
	resp, err := ex.Forward()
	if err != nil {
		return err
	}
	return ex.ReplyWith(resp, f.copy)
}

func (f Throttle) chunk() int {
	if f.Chunk > 0 {
		return f.Chunk
	}
	return int(min(max(f.Rate/10, 1), 32<<10))
}

// copy paces writes so that after n bytes at least n/Rate seconds passed.
func (f Throttle) copy(ex *Exchange, dst io.Writer, src io.Reader) error {
	buf := make([]byte, f.chunk())
	start := ex.Now()
	var sent int64
	for {
		n, rerr := io.ReadFull(src, buf)
		if n > 0 {
			due := start.Add(time.Duration(float64(sent) / float64(f.Rate) * float64(time.Second)))
			if err := ex.Sleep(due.Sub(ex.Now())); err != nil {
				return err
			}
			if _, err := dst.Write(buf[:n]); err != nil {
				return err
			}
			if fl, ok := dst.(interface{ Flush() error }); ok {
				if err := fl.Flush(); err != nil {
					return err
				}
			}
			sent += int64(n)
		}
		switch {
		case rerr == io.EOF || rerr == io.ErrUnexpectedEOF:
			return nil
		case rerr != nil:
			return rerr
		}
	}
}
