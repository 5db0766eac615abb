package scenario

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// yamlMark is a position found by the YAML parser, 0-based as libyaml
// keeps it.
type yamlMark struct {
	index, line, column int
}

// yamlSyntaxError is a YAML syntax error with the positions the parser
// knows: where the problem was found and where the construct it was
// parsing started.
type yamlSyntaxError struct {
	problem, context string
	problemMark      yamlMark
	contextMark      yamlMark
}

// yamlSyntax parses data as a stream of YAML documents and returns its
// first syntax error with positions, or ok false when there is none or the
// parser's positions cannot be read.
//
// The YAML parser that CUE uses (go.yaml.in/yaml/v3) formats a syntax
// error as "yaml: line N: problem" with N taken from the context mark
// (the start of the enclosing flow sequence or mapping) when there is one,
// 0-based for parser errors, and no column: an error on line 3 is then
// reported on line 1. The parser keeps the exact marks, libyaml's
// problem_mark and context_mark, in unexported fields; yamlSyntax reads
// them by reflection after the failed parse. TestYAMLSyntaxPositions pins
// this against the module version in go.mod; when a future version lays
// them out differently, ok is false and the caller keeps the parser's own
// message.
func yamlSyntax(data []byte) (e yamlSyntaxError, ok bool) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			break
		}
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	p := reflect.ValueOf(dec).Elem().FieldByName("parser")
	if p.Kind() != reflect.Pointer || p.IsNil() {
		return e, false
	}
	p = p.Elem().FieldByName("parser")
	// libyaml's yaml_NO_ERROR is 0; any other value is a reader, scanner or
	// parser error with a problem and its mark.
	if p.FieldByName("error").Int() == 0 {
		return e, false
	}
	mark := func(name string) yamlMark {
		m := p.FieldByName(name)
		return yamlMark{
			index:  int(m.FieldByName("index").Int()),
			line:   int(m.FieldByName("line").Int()),
			column: int(m.FieldByName("column").Int()),
		}
	}
	e = yamlSyntaxError{
		problem:     p.FieldByName("problem").String(),
		context:     p.FieldByName("context").String(),
		problemMark: mark("problem_mark"),
		contextMark: mark("context_mark"),
	}
	return e, e.problem != ""
}

// yamlProblem turns a YAML syntax error in src into a problem at the
// right line and column. A problem found at the end of the input (an
// unclosed quote, bracket or brace) is shown where the unclosed construct
// starts. It returns ok false when data has no syntax error the parser can
// place.
func (l *locator) yamlProblem(src Source) (Problem, bool) {
	e, ok := yamlSyntax(src.Data)
	if !ok {
		return Problem{}, false
	}
	at := func(m yamlMark) Pos {
		return Pos{File: l.displayName(src.Name), Line: m.line + 1, Col: m.column + 1}
	}
	if e.problemMark.index >= len(bytes.TrimRight(src.Data, " \t\r\n")) && e.context != "" {
		msg := fmt.Sprintf("%s started here: %s", e.context, e.problem)
		if !strings.Contains(e.problem, "end of stream") {
			msg += " at the end of the file"
		}
		return Problem{Pos: at(e.contextMark), Msg: msg}, true
	}
	return Problem{Pos: at(e.problemMark), Msg: e.problem}, true
}

// yamlSecondDocument returns the problem of a YAML input holding several
// documents (separated by "---"), placed at the second one, or ok false
// when it holds at most one or does not parse (its syntax error is
// reported instead). CUE would read several documents as a list, which
// no scenario is.
func (l *locator) yamlSecondDocument(src Source) (Problem, bool) {
	dec := yaml.NewDecoder(bytes.NewReader(src.Data))
	for i := 0; ; i++ {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			return Problem{}, false
		}
		if i == 1 {
			return Problem{Pos: Pos{File: l.displayName(src.Name), Line: n.Line, Col: n.Column},
				Msg: "a second YAML document: a scenario file holds one (remove the --- separator, or give each document its own file and pass them all)"}, true
		}
	}
}
