package scenario

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"cuelang.org/go/cue"
)

// Unimplemented is a schema field vbench does not implement yet. A
// scenario that sets it to anything but its default is refused at load
// (an [*Error] naming the field's file:line:col), so that it is never
// accepted and then ignored. A dataset kind declares its own
// (DatasetKind.Unimplemented); when one lands, remove it there and from
// argv's unsupported.txt.
type Unimplemented struct {
	// Path is the field path, e.g. "target.profile".
	Path string
	// Flag is the `vllm bench serve` flag the field corresponds to. vbench
	// serve refuses it with the same Reason (argv's allowlist,
	// internal/argv/testdata/unsupported.txt; a test there checks they
	// agree).
	Flag string
	// Reason says what is missing.
	Reason string
}

// UnimplementedFields returns the schema fields vbench refuses because it
// does not implement them yet: those the registered dataset kinds declare
// (DatasetKind.Unimplemented), by kind name and then in each kind's order.
func UnimplementedFields() []Unimplemented {
	datasetKinds.RLock()
	defer datasetKinds.RUnlock()
	var out []Unimplemented
	for _, name := range slices.Sorted(maps.Keys(datasetKinds.kinds)) {
		out = append(out, datasetKinds.kinds[name].Unimplemented...)
	}
	return out
}

// refuseUnimplemented returns a problem for each unimplemented field that
// v (the scenario unified with the schema) sets to something other than
// its schema default. It runs under cueMu.
func refuseUnimplemented(v cue.Value, cs *compiledSchema) []Problem {
	var problems []Problem
	for _, u := range UnimplementedFields() {
		p := cue.ParsePath(u.Path)
		got := v.LookupPath(p)
		if !got.Exists() {
			continue
		}
		def, hasDefault := schemaField(cs.def, p).Default()
		if hasDefault && def.IsConcrete() && sameJSON(got, def) {
			continue
		}
		msg := fmt.Sprintf("not supported yet: %s (remove it", u.Reason)
		if hasDefault && def.IsConcrete() {
			if b, err := def.MarshalJSON(); err == nil {
				msg += fmt.Sprintf(", or set the default %s", b)
			}
		}
		msg += ")"
		problems = append(problems, NewProblem(msg, strings.Split(u.Path, ".")...))
	}
	return problems
}

// schemaField is the schema's field at p, also when p passes through an
// optional field (a dataset kind's), which a plain lookup does not enter.
func schemaField(def cue.Value, p cue.Path) cue.Value {
	if f := def.LookupPath(p); f.Exists() {
		return f
	}
	sels := p.Selectors()
	for i, s := range sels {
		if s.ConstraintType() == 0 && s.LabelType() == cue.StringLabel {
			sels[i] = s.Optional()
		}
	}
	return def.LookupPath(cue.MakePath(sels...))
}

// sameJSON reports whether a and b have equal JSON values, numbers
// compared by value (0 equals 0.0).
func sameJSON(a, b cue.Value) bool {
	decode := func(v cue.Value) (any, bool) {
		data, err := v.MarshalJSON()
		if err != nil {
			return nil, false
		}
		var x any
		err = json.Unmarshal(data, &x)
		return x, err == nil
	}
	x, ok1 := decode(a)
	y, ok2 := decode(b)
	return ok1 && ok2 && reflect.DeepEqual(x, y)
}

// placeAll places each problem in the user's input.
func (l *locator) placeAll(problems []Problem, cs *compiledSchema) []Problem {
	for i := range problems {
		problems[i] = l.place(problems[i], cs)
	}
	return problems
}
