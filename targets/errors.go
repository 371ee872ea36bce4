package targets

import (
	"fmt"
	"strings"
)

// Problem is one thing wrong with a spec, at a 1-based line and column (0
// when unknown, e.g. for a Target built in Go).
type Problem struct {
	Line, Column int
	Path         string // the field, e.g. "operations[0].path"; empty for the whole document
	Msg          string // what is wrong and what was expected
}

// String formats the problem as "LINE:COL: PATH: MSG", leaving out what is unknown.
func (p Problem) String() string {
	var b strings.Builder
	switch {
	case p.Line > 0 && p.Column > 0:
		fmt.Fprintf(&b, "%d:%d: ", p.Line, p.Column)
	case p.Line > 0:
		fmt.Fprintf(&b, "%d: ", p.Line) // the YAML parser reports no column
	}
	if p.Path != "" {
		b.WriteString(p.Path + ": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// SpecError reports an invalid or unreadable spec with every problem found.
// Callers branch on it with errors.As: it is the user's to fix (exit 2).
type SpecError struct {
	File     string // as given to Load or Parse; may be empty
	Problems []Problem
}

// maxProblems bounds a report: past it, more lines help nobody.
const maxProblems = 50

// capProblems keeps the first maxProblems and says how many were left out.
func capProblems(probs []Problem) []Problem {
	if len(probs) <= maxProblems {
		return probs
	}
	n := len(probs) - maxProblems
	return append(probs[:maxProblems:maxProblems], Problem{Msg: fmt.Sprintf("and %d more %s", n, plural(n, "problem", "problems"))})
}

// Lines returns one "FILE:LINE:COL: PATH: MSG" line per problem.
func (e *SpecError) Lines() []string {
	out := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		s := p.String()
		if e.File != "" {
			sep := ": "
			if p.Line > 0 {
				sep = ":"
			}
			s = e.File + sep + s
		}
		out[i] = s
	}
	return out
}

// Error lists the problems, one per line after the first when there are several.
func (e *SpecError) Error() string {
	lines := e.Lines()
	if len(lines) == 1 {
		return "targets: " + lines[0]
	}
	name := e.File
	if name == "" {
		name = "spec"
	}
	return fmt.Sprintf("targets: %s: %d problems:\n\t%s", name, len(lines), strings.Join(lines, "\n\t"))
}

var _ error = (*SpecError)(nil)

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
