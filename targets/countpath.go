package targets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// CountPath locates a count in a JSON document. Its syntax is a minimal
// dotted path: "$" is the whole document, ".name" selects an object member
// and "[N]" (or ".N") an array element, e.g. "$.data[0].count". The value found
// must be a non-negative integer, or an array whose length is the count.
type CountPath struct {
	segs []pathSeg
	text string
}

type pathSeg struct {
	name  string
	index int // >= 0 selects an array element (name is then empty)
}

// ParseCountPath parses s; an empty s means "$".
func ParseCountPath(s string) (CountPath, error) {
	text := s
	if s == "" {
		s = "$"
	}
	rest, ok := strings.CutPrefix(s, "$")
	if !ok {
		return CountPath{}, fmt.Errorf("targets: count path %q must start with $ (e.g. $.count)", text)
	}
	var segs []pathSeg
	for rest != "" {
		var seg pathSeg
		switch rest[0] {
		case '.':
			end := strings.IndexAny(rest[1:], ".[") + 1
			if end == 0 {
				end = len(rest)
			}
			seg.name, seg.index = rest[1:end], -1
			if n, err := strconv.Atoi(seg.name); err == nil && n >= 0 {
				seg.name, seg.index = "", n
			}
			rest = rest[end:]
		case '[':
			end := strings.IndexByte(rest, ']')
			n, err := strconv.Atoi(rest[1:max(end, 1)])
			if end < 0 || err != nil || n < 0 {
				return CountPath{}, fmt.Errorf("targets: count path %q: expected [N] with N a non-negative integer", text)
			}
			seg.index, rest = n, rest[end+1:]
		default:
			return CountPath{}, fmt.Errorf("targets: count path %q: expected . or [ at %q", text, rest)
		}
		if seg.index < 0 && seg.name == "" {
			return CountPath{}, fmt.Errorf("targets: count path %q: empty member name", text)
		}
		segs = append(segs, seg)
	}
	return CountPath{segs: segs, text: s}, nil
}

// String returns the path as written ("$" for the whole document).
func (p CountPath) String() string {
	if p.text == "" {
		return "$"
	}
	return p.text
}

// Count reads the count from the JSON document body.
func (p CountPath) Count(body []byte) (int, error) {
	v, where, err := p.locate("count", body)
	if err != nil {
		return 0, err
	}
	switch v := v.(type) {
	case []any:
		return len(v), nil
	case json.Number:
		n, err := strconv.Atoi(v.String())
		if err != nil || n < 0 {
			return 0, fmt.Errorf("targets: count %s: %s is %s, want a non-negative integer", p, where, v)
		}
		return n, nil
	}
	return 0, errors.New("targets: count " + p.String() + ": " + where + " is neither a number nor an array")
}

// Value reads the JSON value the path locates in body, compacted, so two
// reads of the same state compare equal as strings.
func (p CountPath) Value(body []byte) (string, error) {
	v, _, err := p.locate("value", body)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("targets: value %s: %w", p, err)
	}
	return string(b), nil
}

// locate finds what the path points at in body, and says where that is;
// what names the reading in errors.
func (p CountPath) locate(what string, body []byte) (any, string, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, "", fmt.Errorf("targets: %s %s: body is not JSON: %w", what, p, err)
	}
	where := "$"
	for _, s := range p.segs {
		var ok bool
		if s.index >= 0 {
			arr, isArr := v.([]any)
			if ok = isArr && s.index < len(arr); ok {
				v = arr[s.index]
			}
			where += fmt.Sprintf("[%d]", s.index)
		} else {
			obj, isObj := v.(map[string]any)
			v, ok = obj[s.name]
			ok = ok && isObj
			where += "." + s.name
		}
		if !ok {
			return nil, "", fmt.Errorf("targets: %s %s: nothing at %s", what, p, where)
		}
	}
	return v, where, nil
}
