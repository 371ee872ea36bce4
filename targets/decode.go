package targets

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// maxSpecBytes bounds what Load reads: a spec is a few kilobytes.
const maxSpecBytes = 1 << 20

// Load reads, validates and defaults the spec in the file at path. Every
// problem, including an unreadable file, is reported as a *SpecError.
func Load(path string, opts ...Option) (*Target, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &SpecError{File: path, Problems: []Problem{{Msg: "cannot read: " + pathErrText(err)}}}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSpecBytes+1))
	if err != nil {
		return nil, &SpecError{File: path, Problems: []Problem{{Msg: "cannot read: " + pathErrText(err)}}}
	}
	if len(data) > maxSpecBytes {
		return nil, &SpecError{File: path, Problems: []Problem{{Msg: fmt.Sprintf("larger than %d bytes; is this a target spec?", maxSpecBytes)}}}
	}
	return Parse(path, data, opts...)
}

// Parse decodes data strictly (unknown fields, wrong types and duplicate keys
// are errors), validates it and applies Defaults. name is the file name used
// in error messages and to resolve relative paths; it may be empty.
func Parse(name string, data []byte, opts ...Option) (*Target, error) {
	t, probs := decode(data)
	if len(probs) > 0 {
		return nil, &SpecError{File: name, Problems: capProblems(probs)}
	}
	if name != "" {
		t.Dir = filepath.Dir(name)
		if t.Name == "" {
			t.Name = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
		}
	}
	if err := t.Validate(opts...); err != nil {
		var se *SpecError
		if errors.As(err, &se) {
			se.File = name
		}
		return nil, err
	}
	t.Defaults(opts...)
	return t, nil
}

// decode turns YAML into a Target, checking shapes against the struct types
// first so that every mistake is reported with its line and column.
func decode(data []byte) (*Target, []Problem) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, []Problem{{Msg: "empty spec; expected a mapping with version, kind, service, operations, dependencies and effects (resilcheck target init writes one)"}}
		}
		return nil, yamlProblems(err)
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		return nil, []Problem{{Line: next.Line, Column: next.Column, Msg: "a spec is one YAML document; found a second one (---)"}}
	}
	w := &walker{pos: map[string]position{}}
	w.walk(root.Content[0], targetType, "")
	if len(w.probs) > 0 {
		return nil, w.probs
	}
	var t Target
	strict := yaml.NewDecoder(bytes.NewReader(data))
	strict.KnownFields(true)
	if err := strict.Decode(&t); err != nil {
		return nil, yamlProblems(err) // the walker should have caught it; keep the decoder's word
	}
	t.src = &positions{at: w.pos}
	if p, ok := w.pos["tenancy.header"]; ok && p.null {
		t.Tenancy.Disabled = true // header: "" (or null) written on purpose disables tenancy
	}
	return &t, nil
}

var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// yamlProblems turns the decoder's "yaml: line N: msg" texts into Problems.
func yamlProblems(err error) []Problem {
	var texts []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		texts = te.Errors
	} else {
		texts = []string{err.Error()}
	}
	out := make([]Problem, 0, len(texts))
	for _, s := range texts {
		p := Problem{Msg: strings.TrimPrefix(s, "yaml: ")}
		if m := yamlLine.FindStringSubmatch(s); m != nil {
			p.Line, _ = strconv.Atoi(m[1])
			p.Msg = "invalid YAML: " + m[2]
		}
		out = append(out, p)
	}
	return out
}

func pathErrText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
