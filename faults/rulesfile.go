package faults

import (
	"errors"
	"fmt"
	"os"

	"go.yaml.in/yaml/v3"
)

// RulesFile is a parsed rules file:
//
//	rules:
//	  - name: throttle-first-two
//	    match: {method: POST, path: /charges, first: 2}
//	    fault: {type: abort, status: 429, headers: {Retry-After: "1"}}
//	default: {status: 200, body: "{}"}   # optional: the stand-in's answer
type RulesFile struct {
	Rules []Rule
	// StandIn is the "default" answer for a stand-in, or nil if absent.
	StandIn *Respond
}

// LoadRules reads and parses the rules file at path.
func LoadRules(path string) (*RulesFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("faults: rules file: %w", err)
	}
	return ParseRules(path, data)
}

// ParseRules parses a rules file; name labels errors, which are
// *RulesFileError carrying the line of the offending key.
func ParseRules(name string, data []byte) (*RulesFile, error) {
	fail := func(line int, err error) (*RulesFile, error) {
		return nil, &RulesFileError{File: name, Line: line, Err: err}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			return fail(0, te)
		}
		return fail(0, fmt.Errorf("faults: %w", err)) // yaml's message carries "line N"
	}
	out := &RulesFile{}
	if len(doc.Content) == 0 {
		return out, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return fail(root.Line, errors.New("faults: want a mapping with a rules list"))
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, val := root.Content[i], root.Content[i+1]
		var err error
		switch key.Value {
		case "rules":
			err = out.parseRules(val)
		case "default":
			err = out.parseDefault(val)
		default:
			err = &lineError{key.Line, fmt.Errorf("faults: unknown key %q (known: rules, default)", key.Value)}
		}
		if le := (*lineError)(nil); errors.As(err, &le) {
			return fail(le.line, le.err)
		}
	}
	return out, nil
}

type lineError struct {
	line int
	err  error
}

func (e *lineError) Error() string { return e.err.Error() }

func (f *RulesFile) parseRules(seq *yaml.Node) error {
	if seq.Kind != yaml.SequenceNode {
		return &lineError{seq.Line, errors.New("faults: rules: want a list")}
	}
	names := map[string]int{}
	for _, n := range seq.Content {
		m, err := nodeMap(n)
		if err != nil {
			return err
		}
		r, err := ruleFromMap(m)
		if err != nil {
			return &lineError{lineOf(n, err), err}
		}
		if prev, dup := names[r.Name]; dup {
			return &lineError{n.Line, fmt.Errorf("%w %q (first at line %d)", ErrDuplicateRule, r.Name, prev)}
		}
		names[r.Name] = n.Line
		f.Rules = append(f.Rules, r)
	}
	return nil
}

func (f *RulesFile) parseDefault(n *yaml.Node) error {
	m, err := nodeMap(n)
	if err != nil {
		return err
	}
	var r Respond
	if err := decodeAttrs(&r, m); err != nil {
		err = within("default", err)
		return &lineError{lineOf(n, err), err}
	}
	if err := r.Validate(); err != nil {
		return &lineError{n.Line, fmt.Errorf("faults: default: %w", err)}
	}
	f.StandIn = &r
	return nil
}

func nodeMap(n *yaml.Node) (map[string]any, error) {
	if n.Kind != yaml.MappingNode {
		return nil, &lineError{n.Line, errors.New("faults: want a mapping")}
	}
	var m map[string]any
	if err := n.Decode(&m); err != nil {
		return nil, &lineError{n.Line, fmt.Errorf("faults: %w", err)}
	}
	return m, nil
}

// lineOf finds the line of the key an *AttrError points at, walking down
// from n as far as the path goes.
func lineOf(n *yaml.Node, err error) int {
	line := n.Line
	var ae *AttrError
	if !errors.As(err, &ae) {
		return line
	}
	path := ae.Path
	if len(path) > 0 && path[0] == "default" {
		path = path[1:]
	}
	for _, key := range path {
		if n.Kind != yaml.MappingNode {
			break
		}
		found := false
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				line, n, found = n.Content[i].Line, n.Content[i+1], true
				break
			}
		}
		if !found {
			break
		}
	}
	return line
}
