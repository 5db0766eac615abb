package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/token"
	cuejson "cuelang.org/go/encoding/json"
)

// Override replaces the value at one field path, as a sweep point does.
type Override struct {
	// Path is a field path in CUE syntax, e.g. "load.max_concurrency" or
	// "dataset.random.input_len".
	Path string
	// Value is the new value, as JSON.
	Value json.RawMessage
}

// With returns a copy of s in which each override's value replaces the
// value at its path, re-resolved against the schema (so a value of the
// wrong type, or a misspelt path, is an [*Error]) and validated. An
// experiment expands a sweep point this way. The copy keeps s's sweep,
// repeat and compare fields; clear them first when the result is one run.
func (s *Scenario) With(overrides ...Override) (*Scenario, error) {
	cs, err := loadSchema()
	if err != nil {
		return nil, err
	}
	l := &locator{synthetic: map[*token.File]bool{}, fallback: Pos{File: "scenario"}}
	var ovs []override
	var problems []Problem
	for _, o := range overrides {
		source := o.Path + "=" + string(o.Value)
		labels, err := fieldPath(o.Path)
		if err != nil {
			problems = append(problems, Problem{Pos: Pos{File: source}, Msg: err.Error()})
			continue
		}
		x, err := l.jsonExpr(source, o.Value)
		if err != nil {
			problems = append(problems, Problem{Pos: Pos{File: source}, Msg: err.Error()})
			continue
		}
		ovs = append(ovs, override{labels: labels, expr: x, replace: true, source: source})
	}
	if len(problems) > 0 {
		return nil, newError(nil, problems...)
	}
	return l.rebase(cs, s, ovs)
}

// Merge returns a copy of s with a partial scenario merged in, as a
// compare variant is: each value of partial replaces s's value at the same
// path, objects merging key by key, except that a dataset of another kind
// replaces s's dataset whole. The result is re-resolved against the schema
// and validated. The copy keeps s's sweep, repeat and compare fields.
func (s *Scenario) Merge(partial json.RawMessage) (*Scenario, error) {
	cs, err := loadSchema()
	if err != nil {
		return nil, err
	}
	l := &locator{synthetic: map[*token.File]bool{}, fallback: Pos{File: "scenario"}}
	var ovs []override
	if err := l.flatten(&ovs, nil, partial, s.Dataset.Name); err != nil {
		return nil, newError(nil, Problem{Pos: Pos{File: "variant"}, Msg: err.Error()})
	}
	return l.rebase(cs, s, ovs)
}

// flatten turns a partial scenario into overrides of its leaves.
func (l *locator) flatten(ovs *[]override, labels []string, raw json.RawMessage, datasetKey string) error {
	var obj map[string]json.RawMessage
	isObject := len(labels) == 0 || bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{"))
	if isObject {
		if err := json.Unmarshal(raw, &obj); err != nil {
			return fmt.Errorf("invalid partial scenario at %q: %w", strings.Join(labels, "."), err)
		}
	}
	wholeDataset := len(labels) == 1 && labels[0] == "dataset" && !(len(obj) == 1 && obj[datasetKey] != nil)
	if isObject && len(labels) > 0 && (len(obj) == 0 || wholeDataset) {
		source := "variant " + formatPath(strSelectors(labels))
		x, err := l.jsonExpr(source, raw)
		if err != nil {
			return err
		}
		// An empty object only makes sure the field exists.
		*ovs = append(*ovs, override{labels: labels, expr: x, replace: len(obj) > 0, source: source})
		return nil
	}
	if isObject {
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if err := l.flatten(ovs, append(slices.Clip(labels), k), obj[k], datasetKey); err != nil {
				return err
			}
		}
		return nil
	}
	source := "variant " + formatPath(strSelectors(labels))
	x, err := l.jsonExpr(source, raw)
	if err != nil {
		return err
	}
	*ovs = append(*ovs, override{labels: labels, expr: x, replace: true, source: source})
	return nil
}

// jsonExpr parses a JSON value into CUE syntax positioned at source.
func (l *locator) jsonExpr(source string, raw json.RawMessage) (ast.Expr, error) {
	x, err := cuejson.Extract(source, raw)
	if err != nil {
		return nil, fmt.Errorf("invalid JSON value: %s", strings.TrimSpace(string(raw)))
	}
	if p := x.Pos(); p.IsValid() {
		l.synthetic[p.File()] = true
	}
	return x, nil
}

// rebase resolves s's JSON form with the overrides applied.
func (l *locator) rebase(cs *compiledSchema, s *Scenario, ovs []override) (*Scenario, error) {
	data, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode scenario: %w", err)
	}
	x, err := l.jsonExpr("scenario", data)
	if err != nil {
		return nil, fmt.Errorf("internal error: re-read scenario: %w", err)
	}
	return l.resolve(cs, []*ast.File{exprFile("scenario", x)}, ovs, nil)
}

// checkExperiments resolves every sweep axis value and every compare
// variant against the scenario without its experiment fields, so that a
// bad point shows at load time, at its place in the file.
func (l *locator) checkExperiments(s *Scenario, cs *compiledSchema) []Problem {
	if s.Sweep == nil && s.Compare == nil {
		return nil
	}
	base := s.clone()
	base.Sweep, base.Repeat, base.Compare = nil, nil, nil
	var problems []Problem
	if s.Sweep != nil {
		for _, path := range slices.Sorted(maps.Keys(s.Sweep.Axes)) {
			// A problem with the axis itself (a misspelt path) is the
			// same for every value: it is told once, at the first.
			seen := map[string]bool{}
			for i, value := range s.Sweep.Axes[path] {
				_, err := base.With(Override{Path: path, Value: value})
				at := []cue.Selector{cue.Str("sweep"), cue.Str("axes"), cue.Str(path), cue.Index(i)}
				for _, p := range l.nested(err, at, cs) {
					if !seen[p.Msg] {
						seen[p.Msg] = true
						problems = append(problems, p)
					}
				}
			}
		}
	}
	if s.Compare != nil {
		for _, name := range slices.Sorted(maps.Keys(s.Compare.Variants)) {
			_, err := base.Merge(s.Compare.Variants[name])
			at := []cue.Selector{cue.Str("compare"), cue.Str("variants"), cue.Str(name)}
			problems = append(problems, l.nested(err, at, cs)...)
		}
	}
	return problems
}

// nested places the problems of resolving an experiment point at the
// point's field in the user's input.
func (l *locator) nested(err error, at []cue.Selector, cs *compiledSchema) []Problem {
	if err == nil {
		return nil
	}
	var e *Error
	if !errors.As(err, &e) {
		return []Problem{l.place(Problem{Path: formatPath(at), Msg: err.Error(), elems: at}, cs)}
	}
	problems := make([]Problem, len(e.Problems))
	for i, p := range e.Problems {
		msg := p.Msg
		if p.Path != "" {
			msg = p.Path + ": " + msg
		}
		problems[i] = l.place(Problem{Path: formatPath(at), Msg: msg, elems: at}, cs)
	}
	return problems
}

// strSelectors makes string selectors of labels.
func strSelectors(labels []string) []cue.Selector {
	sels := make([]cue.Selector, len(labels))
	for i, l := range labels {
		sels[i] = cue.Str(l)
	}
	return sels
}
