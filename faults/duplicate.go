package faults

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// Duplicate delivers the request upstream Copies times (default 2) and
// relays one answer: the last copy's (Answer "last", the default) or the
// first's ("first"). Copies go one after another, Gap apart, or all at once
// when Concurrent, to race them against each other.
type Duplicate struct {
	Copies     int           `attr:"copies"`
	Concurrent bool          `attr:"concurrent"`
	Answer     string        `attr:"answer"`
	Gap        time.Duration `attr:"gap"`
}

var _ Fault = Duplicate{}
var _ Validator = Duplicate{}

func init() { Register("duplicate", func() Fault { return new(Duplicate) }) }

const maxCopies = 16

// Validate checks the number of copies and the answer choice.
func (f Duplicate) Validate() error {
	switch {
	case f.Copies < 0 || f.Copies == 1 || f.Copies > maxCopies:
		return fmt.Errorf("copies %d not in [2, %d]", f.Copies, maxCopies)
	case f.Answer != "" && f.Answer != "first" && f.Answer != "last":
		return fmt.Errorf("answer %q: want first or last", f.Answer)
	case f.Gap < 0:
		return errors.New("gap must not be negative")
	}
	return nil
}

func (f Duplicate) plan() (copies, answer int) {
	copies = f.Copies
	if copies == 0 {
		copies = 2
	}
	if f.Answer == "first" {
		return copies, 0
	}
	return copies, copies - 1
}

// Inject delivers the copies and replies with the chosen answer.
func (f Duplicate) Inject(ex *Exchange) error {
	copies, answer := f.plan()
	resps := make([]*http.Response, copies)
	errs := make([]error, copies)
	if f.Concurrent {
		var wg sync.WaitGroup
		for i := range copies {
			wg.Go(func() { resps[i], errs[i] = ex.Forward() })
		}
		wg.Wait()
	} else {
		for i := range copies {
			if i > 0 {
				if err := ex.Sleep(f.Gap); err != nil {
					closeAll(resps)
					return err
				}
			}
			resps[i], errs[i] = ex.Forward()
			if i != answer {
				drain(resps[i])
			} else if i < copies-1 && errs[i] == nil {
				errs[i] = buffer(ex, resps[i])
			}
		}
	}
	for i, r := range resps {
		if i != answer {
			drain(r)
		}
	}
	if errs[answer] != nil {
		return errs[answer]
	}
	return ex.Reply(resps[answer])
}

// drain reads and closes a response that will not be relayed, so the
// upstream finishes writing it.
func drain(r *http.Response) {
	if r == nil || r.Body == nil {
		return
	}
	_, _ = io.Copy(io.Discard, r.Body)
	r.Body.Close()
}

func closeAll(rs []*http.Response) {
	for _, r := range rs {
		drain(r)
	}
}

// buffer reads r's body into memory so its connection is free for the next
// copy, bounded by the proxy's body limit.
func buffer(ex *Exchange, r *http.Response) error {
	limit := ex.p.limits.MaxBodyBytes
	b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	r.Body.Close()
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("faults: duplicate: answer body exceeds %d bytes", limit)
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	return err
}
