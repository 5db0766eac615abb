package scenario

import (
	"fmt"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"
)

// override replaces (or, when !replace, adds to) the value at one field
// path, like --set.
type override struct {
	// labels are the field names of the path.
	labels []string
	// expr is the new value; its positions lie in a synthetic file named
	// after source.
	expr ast.Expr
	// replace removes whatever the inputs say at the path first.
	replace bool
	// source names the override in errors: "--set a.b=c".
	source string
	// dropped marks an override a later one replaced (chooseTarget).
	dropped bool
}

// syntheticPos returns a position in a new file named name, shown in errors
// as just the name, like a command-line argument.
func (l *locator) syntheticPos(name string) token.Pos {
	tf := token.NewFile(name, 0, len(name)+1)
	l.synthetic[tf] = true
	return tf.Pos(0, token.NoRelPos)
}

// parseSet parses a --set argument "path=value".
func (l *locator) parseSet(arg string) (override, *Problem) {
	source := setSource(arg)
	path, value, ok := strings.Cut(arg, "=")
	if !ok || strings.TrimSpace(path) == "" {
		return override{}, &Problem{Pos: Pos{File: source}, Msg: "want path=value, e.g. load.num_prompts=10"}
	}
	labels, err := fieldPath(strings.TrimSpace(path))
	if err != nil {
		return override{}, &Problem{Pos: Pos{File: source}, Msg: err.Error()}
	}
	return override{labels: labels, expr: l.literalOrString(source, value), replace: true, source: source}, nil
}

// setSource names the --set argument arg ("path=value") in errors and
// notes, without secrets: a value that sets or holds header values is
// shown as RedactedValue, and a base URL without its password.
func setSource(arg string) string {
	path, value, ok := strings.Cut(arg, "=")
	if !ok {
		return "--set " + arg
	}
	headers := strings.Contains(value, "headers")
	labels, err := fieldPath(strings.TrimSpace(path))
	if err != nil {
		headers = headers || strings.Contains(path, "headers")
	}
	for _, l := range labels {
		headers = headers || strings.Contains(l, "headers") // also a sweep axis "target.headers"
	}
	switch {
	case headers:
		value = RedactedValue
	case len(labels) > 0 && labels[len(labels)-1] == "base_url":
		if u := strings.Trim(value, `"`); RedactURL(u) != u {
			value = RedactURL(u)
		}
	}
	return "--set " + path + "=" + value
}

// fieldPath parses a field path in CUE syntax ("load.num_prompts",
// `target.headers."X-Key"`) into its labels. Only regular fields are
// allowed: no definitions, hidden fields, list indices or patterns.
func fieldPath(path string) ([]string, error) {
	p := cue.ParsePath(path)
	if err := p.Err(); err != nil {
		return nil, fmt.Errorf("invalid field path %q: %w", path, err)
	}
	var labels []string
	for _, sel := range p.Selectors() {
		if sel.Type() != cue.StringLabel {
			return nil, fmt.Errorf("invalid field path %q: %s is not a regular field name", path, sel)
		}
		labels = append(labels, sel.Unquoted())
	}
	if len(labels) == 0 {
		return nil, fmt.Errorf("invalid field path %q: empty", path)
	}
	return labels, nil
}

// literalOrString parses value as a CUE or JSON literal (a number, a
// quoted string, true, false, null, or a list or struct of literals) and
// otherwise takes it as a plain string, so that load.num_prompts=10 is a
// number and target.base_url=http://h:8000 a string.
func (l *locator) literalOrString(source, value string) ast.Expr {
	if x, err := parser.ParseExpr(source, value); err == nil && isLiteral(x) {
		if p := x.Pos(); p.IsValid() {
			l.synthetic[p.File()] = true
		}
		return x
	}
	s := ast.NewString(value)
	s.ValuePos = l.syntheticPos(source)
	return s
}

// isLiteral reports whether x is a literal value without references,
// operators (other than a sign) or comprehensions.
func isLiteral(x ast.Expr) bool {
	switch x := x.(type) {
	case *ast.BasicLit:
		return true
	case *ast.UnaryExpr:
		lit, ok := x.X.(*ast.BasicLit)
		return ok && (x.Op == token.SUB || x.Op == token.ADD) && (lit.Kind == token.INT || lit.Kind == token.FLOAT)
	case *ast.ListLit:
		for _, e := range x.Elts {
			if !isLiteral(e) {
				return false
			}
		}
		return true
	case *ast.StructLit:
		for _, d := range x.Elts {
			f, ok := d.(*ast.Field)
			if !ok || f.Constraint != token.ILLEGAL || len(f.Attrs) > 0 || !isLiteral(f.Value) {
				return false
			}
			if _, _, err := ast.LabelName(f.Label); err != nil || isHiddenOrDef(f.Label) {
				return false
			}
		}
		return true
	}
	return false
}

// file builds the override as a CUE file: `a: b: c: value`, every label
// positioned at the override's source.
func (o override) file(l *locator) *ast.File {
	pos := l.syntheticPos(o.source)
	var value = o.expr
	for i := len(o.labels) - 1; i >= 0; i-- {
		label := ast.NewStringLabel(o.labels[i])
		switch label := label.(type) {
		case *ast.Ident:
			label.NamePos = pos
		case *ast.BasicLit:
			label.ValuePos = pos
		}
		field := &ast.Field{Label: label, Value: value}
		if i == 0 {
			return &ast.File{Filename: o.source, Decls: []ast.Decl{field}}
		}
		value = &ast.StructLit{Elts: []ast.Decl{field}}
	}
	return &ast.File{Filename: o.source}
}

// removeField deletes every field at the path of labels from decls,
// following nested struct literals, embedded structs and the operands of
// &. A value given some other way (a reference, a comprehension) stays,
// and then conflicts with the override, which the error shows.
func removeField(decls []ast.Decl, labels []string) []ast.Decl {
	out := decls[:0]
	for _, d := range decls {
		switch d := d.(type) {
		case *ast.Field:
			name, _, err := ast.LabelName(d.Label)
			if err == nil && name == labels[0] && !isHiddenOrDef(d.Label) {
				if len(labels) == 1 {
					continue
				}
				removeIn(d.Value, labels[1:])
			}
		case *ast.EmbedDecl:
			removeIn(d.Expr, labels)
		}
		out = append(out, d)
	}
	return out
}

func removeIn(x ast.Expr, labels []string) {
	switch x := x.(type) {
	case *ast.StructLit:
		x.Elts = removeField(x.Elts, labels)
	case *ast.BinaryExpr:
		if x.Op == token.AND {
			removeIn(x.X, labels)
			removeIn(x.Y, labels)
		}
	case *ast.ParenExpr:
		removeIn(x.X, labels)
	}
}

// isHiddenOrDef reports whether label is an identifier naming a hidden
// field or a definition.
func isHiddenOrDef(label ast.Label) bool {
	id, ok := label.(*ast.Ident)
	return ok && (strings.HasPrefix(id.Name, "_") || strings.HasPrefix(id.Name, "#"))
}
