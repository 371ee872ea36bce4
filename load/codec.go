package load

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Encodings lists the result file formats, vegeta's own.
var Encodings = []string{"gob", "json", "csv"}

// NewEncoder returns vegeta's encoder for format ("gob", "json" or "csv")
// writing to w; calls must not be concurrent.
func NewEncoder(format string, w io.Writer) (vegeta.Encoder, error) {
	switch format {
	case "gob", "":
		return vegeta.NewEncoder(w), nil
	case "json":
		return vegeta.NewJSONEncoder(w), nil
	case "csv":
		return vegeta.NewCSVEncoder(w), nil
	}
	return nil, fmt.Errorf("%w: encoding %q (want gob, json or csv)", ErrSpec, format)
}

// ErrUnknownFormat reports a result stream in none of vegeta's formats.
var ErrUnknownFormat = errors.New("load: not a vegeta result file (gob, json or csv)")

// Merge decodes result streams written on several machines, in any of
// vegeta's formats (sniffed per stream), round-robin into one Metrics; each
// result is also passed to each, if not nil. A stream in no known format is
// an error naming its index; an empty stream contributes nothing.
func Merge(each func(*vegeta.Result), streams ...io.Reader) (vegeta.Metrics, error) {
	var m vegeta.Metrics
	decs := make([]vegeta.Decoder, 0, len(streams))
	for i, s := range streams {
		br := bufio.NewReader(s)
		if _, err := br.Peek(1); errors.Is(err, io.EOF) {
			continue
		}
		dec := vegeta.DecoderFor(br)
		if dec == nil {
			return m, fmt.Errorf("stream %d: %w", i+1, ErrUnknownFormat)
		}
		decs = append(decs, dec)
	}
	if len(decs) == 0 {
		m.Close()
		return m, nil
	}
	dec := vegeta.NewRoundRobinDecoder(decs...)
	for {
		var r vegeta.Result
		err := dec.Decode(&r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return m, fmt.Errorf("load: decoding results: %w", err)
		}
		m.Add(&r)
		if each != nil {
			each(&r)
		}
	}
	m.Close()
	return m, nil
}
