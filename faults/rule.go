package faults

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Rule applies Fault to the requests Match selects. Rules are evaluated in
// order and the first whose Match holds handles the request. Name must be
// unique within a proxy; it labels metrics and journal entries.
type Rule struct {
	Name  string
	Match Match
	Fault Fault
}

// Validate checks the name, the match and the fault.
func (r Rule) Validate() error {
	switch {
	case strings.TrimSpace(r.Name) == "":
		return fmt.Errorf("%w: a rule needs a name", ErrInvalidRule)
	case r.Fault == nil:
		return fmt.Errorf("%w %q: no fault", ErrInvalidRule, r.Name)
	case TypeOf(r.Fault) == "":
		return fmt.Errorf("%w %q: fault type %T is not registered", ErrInvalidRule, r.Name, r.Fault)
	}
	if err := r.Match.Validate(); err != nil {
		return fmt.Errorf("%w %q: match: %w", ErrInvalidRule, r.Name, err)
	}
	if err := validateFault(r.Fault); err != nil {
		return fmt.Errorf("%w %q: %w", ErrInvalidRule, r.Name, err)
	}
	return nil
}

// MarshalJSON writes {"name":…, "match":{…}, "fault":{"type":…, attrs…}}.
func (r Rule) MarshalJSON() ([]byte, error) {
	fault := FaultAttrs(r.Fault)
	fault["type"] = TypeOf(r.Fault)
	return json.Marshal(map[string]any{"name": r.Name, "match": encodeAttrs(&r.Match), "fault": fault})
}

// UnmarshalJSON reads what MarshalJSON writes, strictly: unknown keys and
// attributes are errors. The rule is validated.
func (r *Rule) UnmarshalJSON(b []byte) error {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return fmt.Errorf("faults: rule: %w", err)
	}
	rule, err := ruleFromMap(m)
	if err != nil {
		return err
	}
	*r = rule
	return nil
}

var ruleKeys = []string{"fault", "match", "name"}

// ruleFromMap decodes a generic rule, as parsed from YAML or JSON, and
// validates it. Errors are *AttrError so callers can locate them.
func ruleFromMap(m map[string]any) (Rule, error) {
	var r Rule
	for k := range m {
		if !slices.Contains(ruleKeys, k) {
			return r, &AttrError{Path: []string{k}, Err: fmt.Errorf("unknown key (known: %s)", strings.Join(ruleKeys, ", "))}
		}
	}
	name, ok := m["name"].(string)
	if !ok || strings.TrimSpace(name) == "" {
		return r, &AttrError{Path: []string{"name"}, Err: errors.New("a rule needs a name (a non-empty string)")}
	}
	r.Name = name
	if raw, ok := m["match"]; ok && raw != nil {
		mm, ok := raw.(map[string]any)
		if !ok {
			return r, &AttrError{Path: []string{"match"}, Err: fmt.Errorf("want a mapping, got %s", kindOf(raw))}
		}
		if err := decodeMatch(&r.Match, mm); err != nil {
			return r, within("match", err)
		}
	}
	fault, err := faultFromMap(m["fault"])
	if err != nil {
		return r, within("fault", err)
	}
	r.Fault = fault
	if err := r.Validate(); err != nil {
		return r, &AttrError{Path: []string{"rule"}, Err: err}
	}
	return r, nil
}

func decodeMatch(dst *Match, m map[string]any) error {
	if err := decodeAttrs(dst, m); err != nil {
		return err
	}
	if p, ok := m["probability"]; ok && dst.Probability == 0 {
		return &AttrError{Path: []string{"probability"}, Err: fmt.Errorf("%v not in (0, 1]; remove the rule to never fault", p)}
	}
	if err := dst.Validate(); err != nil {
		return err
	}
	return nil
}

func faultFromMap(raw any) (Fault, error) {
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want a mapping with a type, got %s", kindOf(raw))
	}
	typ, ok := m["type"].(string)
	if !ok {
		return nil, &AttrError{Path: []string{"type"}, Err: fmt.Errorf("missing fault type (known: %v)", Types())}
	}
	attrs := maps.Clone(m)
	delete(attrs, "type")
	f, err := NewFault(typ, attrs)
	if err != nil && errors.Is(err, ErrUnknownFault) {
		return nil, &AttrError{Path: []string{"type"}, Err: err}
	}
	return f, err
}
