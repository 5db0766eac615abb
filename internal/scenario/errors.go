package scenario

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"cuelang.org/go/cue"
)

// Error reports an invalid scenario: every problem found, each with the
// place in the user's input it was found at. LoadFiles returns it for anything
// the user can fix (a file that does not parse or read, a misspelt field,
// a wrong type, a bad --set or tag, a failed validation rule); the CLI
// prints it and exits with status 2.
type Error struct {
	// Problems are the problems found, in source order.
	Problems []Problem

	// cause is the underlying error (such as a file that cannot be read),
	// for errors.Is and errors.As.
	cause error
}

// Error returns the problems, one per line.
func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the underlying error, if any.
func (e *Error) Unwrap() error { return e.cause }

// Problem is one reason a scenario is invalid.
type Problem struct {
	// Pos is where the problem is. Its File is empty when the problem has
	// no place in the input.
	Pos Pos
	// Others are further places involved, such as the other side of a
	// conflict between two files.
	Others []Pos
	// Path is the field path in CUE syntax, e.g. "load.num_prompts" or
	// `target.headers."X-Key"`; empty when the problem is not about a field.
	Path string
	// Msg says what is wrong and, where it can, what is allowed.
	Msg string

	// elems is Path as selectors, used to find Pos in the user's input.
	elems []cue.Selector
}

// String formats p as "file:line:col: path: message (also file:line:col)".
func (p Problem) String() string {
	var b strings.Builder
	if s := p.Pos.String(); s != "" {
		b.WriteString(s)
		b.WriteString(": ")
	}
	if p.Path != "" {
		b.WriteString(p.Path)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	if len(p.Others) > 0 {
		others := make([]string, len(p.Others))
		for i, o := range p.Others {
			others[i] = o.String()
		}
		fmt.Fprintf(&b, " (also %s)", strings.Join(others, ", "))
	}
	return b.String()
}

// Pos is a place in the user's input.
type Pos struct {
	// File is the file name, relative to the working directory when it is
	// under it, or the command-line source of a value: "--set path=value",
	// "tag name", or "$VBENCH_NAME".
	File string
	// Line and Col are 1-based; both are zero for a command-line source,
	// and Col is zero when only the line is known.
	Line, Col int
}

// String formats p as "file:line:col", "file:line" when the column is
// not known, or just the file (or source) when there is no line.
func (p Pos) String() string {
	switch {
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

func comparePos(a, b Pos) int {
	return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
}

// newProblem makes a problem about the field at the path of labels.
func NewProblem(msg string, labels ...string) Problem {
	sels := strSelectors(labels)
	return Problem{Path: formatPath(sels), Msg: msg, elems: sels}
}

// newError wraps problems into an *Error, sorted by position and with
// duplicates removed.
func newError(cause error, problems ...Problem) *Error {
	problems = slices.Clone(problems)
	slices.SortStableFunc(problems, func(a, b Problem) int {
		return cmp.Or(comparePos(a.Pos, b.Pos), cmp.Compare(a.Path, b.Path))
	})
	problems = slices.CompactFunc(problems, func(a, b Problem) bool { return a.String() == b.String() })
	return &Error{Problems: problems, cause: cause}
}

// formatPath writes selectors as a CUE path: identifiers bare, other
// labels quoted, list indices in brackets.
func formatPath(sels []cue.Selector) string {
	if len(sels) == 0 {
		return ""
	}
	return cue.MakePath(sels...).String()
}
