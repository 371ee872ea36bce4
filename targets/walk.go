package targets

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

var (
	targetType   = reflect.TypeFor[Target]()
	durationType = reflect.TypeFor[time.Duration]()
)

// maxNodes bounds the walk so that aliases expanding into millions of nodes
// fail with an error rather than exhausting memory.
const maxNodes = 100_000

// position is where a field's key and value were written (1-based).
type position struct {
	keyLine, keyCol int
	line, col       int
	null            bool // the value was written as empty or null
}

// positions maps field paths ("operations[0].path") to where they were written.
type positions struct{ at map[string]position }

// walker checks a YAML node tree against Go types, collecting problems with
// positions and recording where every field was written.
type walker struct {
	probs []Problem
	pos   map[string]position
	nodes int
}

func (w *walker) addf(n *yaml.Node, path, format string, a ...any) {
	w.probs = append(w.probs, Problem{Line: n.Line, Column: n.Column, Path: path, Msg: fmt.Sprintf(format, a...)})
}

func (w *walker) walk(n *yaml.Node, t reflect.Type, path string) {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if w.nodes++; w.nodes > maxNodes {
		if w.nodes == maxNodes+1 {
			w.addf(n, path, "the document expands to more than %d nodes (aliases?); a spec is small", maxNodes)
		}
		return
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return // empty means the zero value, i.e. the default
	}
	switch {
	case t == durationType:
		w.scalar(n, path, "a duration with a unit, such as 30s or 500ms", func(s string) bool {
			_, err := time.ParseDuration(s)
			return err == nil && n.Tag == "!!str"
		})
	case t.Kind() == reflect.Struct:
		w.mapping(n, t, path)
	case t.Kind() == reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			w.addf(n, path, "expected a list of %s, got %s", describePlural(t.Elem()), got(n))
			return
		}
		for i, e := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			w.pos[p] = position{keyLine: e.Line, keyCol: e.Column, line: e.Line, col: e.Column}
			w.walk(e, t.Elem(), p)
		}
	case t.Kind() == reflect.Map:
		w.stringMap(n, t, path)
	case t.Kind() == reflect.String:
		w.scalar(n, path, "a string", func(string) bool { return true })
	case t.Kind() == reflect.Int:
		w.scalar(n, path, "an integer", func(s string) bool { return n.Tag == "!!int" })
	case t.Kind() == reflect.Bool:
		w.scalar(n, path, "true or false", func(s string) bool { return n.Tag == "!!bool" })
	case t.Kind() == reflect.Float64:
		w.scalar(n, path, "a number", func(s string) bool { return n.Tag == "!!float" || n.Tag == "!!int" })
	case t.Kind() == reflect.Pointer: // optional with a default other than the zero value
		w.walk(n, t.Elem(), path)
	default:
		w.addf(n, path, "internal: no decoder for %s", t) // a new field type needs a case here
	}
}

func (w *walker) scalar(n *yaml.Node, path, want string, ok func(string) bool) {
	if n.Kind != yaml.ScalarNode || !ok(n.Value) {
		w.addf(n, path, "expected %s, got %s", want, got(n))
	}
}

func (w *walker) mapping(n *yaml.Node, t reflect.Type, path string) {
	if n.Kind != yaml.MappingNode {
		w.addf(n, path, "expected %s, got %s", describe(t), got(n))
		return
	}
	fields := yamlFields(t)
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Tag == "!!merge" {
			w.walk(v, t, path) // <<: *anchor merges the anchored mapping's fields
			continue
		}
		p := join(path, k.Value)
		if line, dup := seen[k.Value]; dup {
			w.addf(k, p, "duplicate key %q (first written at line %d)", k.Value, line)
			continue
		}
		seen[k.Value] = k.Line
		f, ok := fields[k.Value]
		if !ok {
			w.addf(k, path, "unknown field %q%s; expected one of: %s", k.Value, suggest(k.Value, t), strings.Join(fieldNames(t), ", "))
			continue
		}
		w.pos[p] = position{keyLine: k.Line, keyCol: k.Column, line: v.Line, col: v.Column,
			null: v.Kind == yaml.ScalarNode && (v.Tag == "!!null" || v.Value == "")}
		w.walk(v, f.Type, p)
	}
}

func (w *walker) stringMap(n *yaml.Node, t reflect.Type, path string) {
	if n.Kind != yaml.MappingNode {
		w.addf(n, path, "expected %s, got %s", describe(t), got(n))
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
			w.addf(k, path, "expected a plain name as the key, got %s", got(k))
			continue
		}
		p := join(path, k.Value)
		w.pos[p] = position{keyLine: k.Line, keyCol: k.Column, line: v.Line, col: v.Column}
		w.walk(v, t.Elem(), p)
	}
}

// yamlFields maps YAML keys to struct fields, skipping `yaml:"-"` and unexported ones.
func yamlFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for f := range t.Fields() {
		if name := yamlName(f); name != "" {
			out[name] = f
		}
	}
	return out
}

func yamlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if !f.IsExported() || name == "-" || name == "" {
		return ""
	}
	return name
}

// fieldNames lists t's YAML keys in declaration order.
func fieldNames(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		if name := yamlName(f); name != "" {
			out = append(out, name)
		}
	}
	return out
}

func describe(t reflect.Type) string {
	switch {
	case t.Kind() == reflect.Pointer:
		return describe(t.Elem())
	case t == durationType:
		return "a duration such as 30s"
	case t.Kind() == reflect.Struct:
		return "a mapping with keys " + strings.Join(fieldNames(t), ", ")
	case t.Kind() == reflect.Map:
		return "a mapping of names to " + describePlural(t.Elem())
	case t.Kind() == reflect.Slice:
		return "a list"
	case t.Kind() == reflect.Int:
		return "an integer"
	case t.Kind() == reflect.Float64:
		return "a number"
	case t.Kind() == reflect.Bool:
		return "true or false"
	}
	return "a string"
}

func describePlural(t reflect.Type) string {
	switch {
	case t.Kind() == reflect.Struct:
		return "mappings with keys " + strings.Join(fieldNames(t), ", ")
	case t.Kind() == reflect.Int:
		return "integers"
	}
	return "strings"
}

func got(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	v := n.Value
	if len(v) > 40 {
		v = v[:40] + "…"
	}
	return strconv.Quote(v)
}

// suggest returns ` (did you mean "x"?)` for the closest known key, if close.
func suggest(key string, t reflect.Type) string {
	best, dist := "", 3
	for _, name := range fieldNames(t) {
		if d := editDistance(strings.ToLower(key), name); d < dist {
			best, dist = name, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = slices.Min([]int{prev[j] + 1, cur[j-1] + 1, prev[j-1] + cost})
		}
		prev = cur
	}
	return prev[len(b)]
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
