package scenario

import (
	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
)

// runCheck calls check (Options.Check) on the resolved scenario and
// places each problem it returns at its field in the user's input: at the
// field's value when the field was written in one place, else at the
// field or its nearest written ancestor, else at the first input.
func (l *locator) runCheck(s *Scenario, cs *compiledSchema, check func(*Scenario) []Problem) []Problem {
	if check == nil {
		return nil
	}
	problems := check(s.clone())
	if len(problems) == 0 {
		return nil
	}
	cueMu.Lock()
	defer cueMu.Unlock()
	out := make([]Problem, len(problems))
	for i, p := range problems {
		if p.elems == nil && p.Path != "" {
			if path := cue.ParsePath(p.Path); path.Err() == nil {
				p.elems = path.Selectors()
			}
		}
		if p.Pos.File == "" {
			p.Pos = l.valuePos(p.elems, cs)
		}
		out[i] = l.place(p, cs)
	}
	return out
}

// valuePos is where the value of the field at sels was written, when it
// was written once (a field unified from several inputs has no single
// place); the zero Pos otherwise.
func (l *locator) valuePos(sels []cue.Selector, cs *compiledSchema) Pos {
	if !l.user.Exists() || len(sels) == 0 {
		return Pos{}
	}
	v := l.user.LookupPath(cue.MakePath(sels...))
	f, ok := v.Source().(*ast.Field)
	if !ok || f.Value == nil {
		return Pos{}
	}
	if p := f.Value.Pos(); p.IsValid() && !cs.isSchemaPos(p) {
		return l.pos(p)
	}
	return Pos{}
}
