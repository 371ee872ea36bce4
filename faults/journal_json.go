package faults

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// entryJSON is the wire form of an Entry: wall-clock receipt time for
// humans, and microsecond offsets from the journal start for checks.
type entryJSON struct {
	Seq              uint64            `json:"seq"`
	ID               string            `json:"id"`
	Side             string            `json:"side"`
	Seed             uint64            `json:"seed"`
	Conn             uint64            `json:"conn"`
	Proto            string            `json:"proto,omitempty"`
	JournalStart     time.Time         `json:"journal_start"`
	ReceivedUS       *int64            `json:"received_us,omitempty"`
	ForwardedUS      *int64            `json:"forwarded_us,omitempty"`
	SentUS           *int64            `json:"sent_us,omitempty"`
	AnsweredUS       *int64            `json:"answered_us,omitempty"`
	FinishedUS       *int64            `json:"finished_us,omitempty"`
	ClientGoneUS     *int64            `json:"client_gone_us,omitempty"`
	Method           string            `json:"method"`
	Path             string            `json:"path"`
	Query            string            `json:"query,omitempty"`
	Headers          map[string]string `json:"headers,omitempty"`
	Status           int               `json:"status"`
	ResponseHeaders  map[string]string `json:"response_headers,omitempty"`
	BytesIn          int64             `json:"bytes_in"`
	BytesOut         int64             `json:"bytes_out"`
	BodySHA256       string            `json:"body_sha256,omitempty"`
	Rule             string            `json:"rule,omitempty"`
	Fault            string            `json:"fault,omitempty"`
	UpstreamCalls    int               `json:"upstream_calls"`
	UpstreamStatuses []int             `json:"upstream_statuses,omitempty"`
	UpstreamGRPC     []int             `json:"upstream_grpc_statuses,omitempty"`
	Outcome          string            `json:"outcome"`
	Error            string            `json:"error,omitempty"`
}

func offsetUS(e *Entry, t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	us := t.Sub(e.Start).Microseconds()
	return &us
}

func fromOffset(start time.Time, us *int64) time.Time {
	if us == nil {
		return time.Time{}
	}
	return start.Add(time.Duration(*us) * time.Microsecond)
}

// MarshalJSON writes the entry with times as microsecond offsets from the
// journal start ("received_us", …) and the start itself as RFC 3339.
func (e Entry) MarshalJSON() ([]byte, error) {
	return json.Marshal(e.wire())
}

// wire is e's wire form.
func (e *Entry) wire() *entryJSON {
	return &entryJSON{
		Seq: e.Seq, ID: e.ID, Side: e.Side, Seed: e.Seed, Conn: e.Conn, Proto: e.Proto, JournalStart: e.Start.Round(0),
		ReceivedUS: offsetUS(e, e.Received), ForwardedUS: offsetUS(e, e.Forwarded), SentUS: offsetUS(e, e.Sent),
		AnsweredUS: offsetUS(e, e.Answered), FinishedUS: offsetUS(e, e.Finished),
		ClientGoneUS: offsetUS(e, e.ClientGone),
		Method:       e.Method, Path: e.Path, Query: e.Query, Headers: e.Headers, Status: e.Status,
		ResponseHeaders: e.ResponseHeaders, BytesIn: e.BytesIn, BytesOut: e.BytesOut,
		BodySHA256: e.BodySHA256, Rule: e.Rule, Fault: e.Fault, UpstreamCalls: e.UpstreamCalls,
		UpstreamStatuses: e.UpstreamStatuses, UpstreamGRPC: e.UpstreamGRPCStatuses, Outcome: e.Outcome, Error: e.Error,
	}
}

// UnmarshalJSON reads what MarshalJSON writes. Times are rebuilt from the
// journal start and offsets, so they carry no monotonic reading.
func (e *Entry) UnmarshalJSON(b []byte) error {
	var w entryJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("faults: journal entry: %w", err)
	}
	*e = Entry{
		Seq: w.Seq, ID: w.ID, Side: w.Side, Seed: w.Seed, Conn: w.Conn, Proto: w.Proto, Start: w.JournalStart,
		Received: fromOffset(w.JournalStart, w.ReceivedUS), Forwarded: fromOffset(w.JournalStart, w.ForwardedUS),
		Sent:     fromOffset(w.JournalStart, w.SentUS),
		Answered: fromOffset(w.JournalStart, w.AnsweredUS), Finished: fromOffset(w.JournalStart, w.FinishedUS),
		ClientGone: fromOffset(w.JournalStart, w.ClientGoneUS),
		Method:     w.Method, Path: w.Path, Query: w.Query, Headers: w.Headers, Status: w.Status,
		ResponseHeaders: w.ResponseHeaders, BytesIn: w.BytesIn, BytesOut: w.BytesOut,
		BodySHA256: w.BodySHA256, Rule: w.Rule, Fault: w.Fault, UpstreamCalls: w.UpstreamCalls,
		UpstreamStatuses: w.UpstreamStatuses, UpstreamGRPCStatuses: w.UpstreamGRPC, Outcome: w.Outcome, Error: w.Error,
	}
	return nil
}

// WriteJSONLines writes the entries that pass the filters, one JSON object
// per line, oldest first.
func (j *Journal) WriteJSONLines(w io.Writer, filters ...Filter) error {
	return WriteJSONLines(w, j.Snapshot(filters...))
}

// WriteJSONLines writes entries one JSON object per line. It encodes each
// entry's wire form directly: encoding the Entry would call MarshalJSON and
// then validate and compact its output again, for the same bytes.
func WriteJSONLines(w io.Writer, entries []Entry) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for i := range entries {
		if err := enc.Encode(entries[i].wire()); err != nil {
			return fmt.Errorf("faults: write journal: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("faults: write journal: %w", err)
	}
	return nil
}

// ReadJSONLines reads entries written by WriteJSONLines, so a saved journal
// can be checked again.
func ReadJSONLines(r io.Reader) ([]Entry, error) {
	var out []Entry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return out, fmt.Errorf("faults: journal line %d: %w", line, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("faults: read journal: %w", err)
	}
	return out, nil
}
