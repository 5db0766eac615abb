package scenario

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"
)

// EnvPrefix prefixes the environment variable that supplies a tag not given
// in Options.Tags: @tag(url) reads VBENCH_URL.
const EnvPrefix = "VBENCH_"

// tagField is a field of a CUE file marked @tag(name) or
// @tag(name,type=kind), as cue's -t injects: the value given for the tag
// is unified with the field's value.
type tagField struct {
	name  string
	kind  string // string, int, number or bool
	field *ast.Field
}

// findTags returns the fields of files marked with @tag, and problems with
// malformed or misplaced tags.
func (l *locator) findTags(files []*ast.File) ([]tagField, []Problem) {
	var tags []tagField
	var problems []Problem
	misplaced := func(n ast.Node, where string) {
		ast.Walk(n, func(n ast.Node) bool {
			if f, ok := n.(*ast.Field); ok {
				for _, a := range f.Attrs {
					if key, _ := a.Split(); key == "tag" {
						problems = append(problems, Problem{Pos: l.pos(a.Pos()), Msg: "@tag not allowed " + where})
					}
				}
			}
			return true
		}, nil)
	}
	for _, f := range files {
		ast.Walk(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ListLit:
				misplaced(n, "within lists")
				return false
			case *ast.Comprehension:
				misplaced(n, "within comprehensions")
				return false
			case *ast.Field:
				for _, a := range n.Attrs {
					if key, _ := a.Split(); key != "tag" {
						continue
					}
					if _, _, err := ast.LabelName(n.Label); err != nil || n.Constraint != token.ILLEGAL {
						problems = append(problems, Problem{Pos: l.pos(a.Pos()), Msg: "@tag not allowed on an optional, required or pattern field"})
						continue
					}
					t, msg := parseTag(a)
					if msg != "" {
						problems = append(problems, Problem{Pos: l.pos(a.Pos()), Msg: msg})
						continue
					}
					t.field = n
					tags = append(tags, t)
				}
			}
			return true
		}, nil)
	}
	return tags, problems
}

// parseTag parses @tag(name[,type=string|int|number|bool]); a non-empty
// message says what is wrong.
func parseTag(a *ast.Attribute) (tagField, string) {
	_, body := a.Split()
	parts := strings.Split(body, ",")
	t := tagField{name: strings.TrimSpace(parts[0]), kind: "string"}
	if !ast.IsValidIdent(t.name) || strings.HasPrefix(t.name, "#") || strings.HasPrefix(t.name, "_") {
		return t, fmt.Sprintf("invalid tag name %q: want an identifier", t.name)
	}
	for _, opt := range parts[1:] {
		key, value, _ := strings.Cut(strings.TrimSpace(opt), "=")
		switch key {
		case "type":
			switch value {
			case "string", "int", "number", "bool":
				t.kind = value
			default:
				return t, fmt.Sprintf("invalid tag type %q: want string, int, number or bool", value)
			}
		default:
			return t, fmt.Sprintf("unsupported @tag option %q: only type= is supported", key)
		}
	}
	return t, ""
}

// declaredTags returns the names of the tags declared in files.
func (l *locator) declaredTags(files []*ast.File) map[string]bool {
	fields, _ := l.findTags(files)
	names := map[string]bool{}
	for _, t := range fields {
		names[t.name] = true
	}
	return names
}

// unknownTags reports tags given a value that no field declares.
func unknownTags(tags map[string]string, declared map[string]bool) []Problem {
	var problems []Problem
	for _, name := range slices.Sorted(maps.Keys(tags)) {
		if !declared[name] {
			problems = append(problems, Problem{Pos: Pos{File: "tag " + name}, Msg: fmt.Sprintf("no field is marked @tag(%s)", name)})
		}
	}
	return problems
}

// injectTags unifies each tagged field of files with the tag's value: from
// tags, else from env(EnvPrefix + NAME) when env is not nil and the
// variable is not empty. A tag with no value leaves the field as written.
func (l *locator) injectTags(files []*ast.File, tags map[string]string, env func(string) string) []Problem {
	fields, problems := l.findTags(files)
	for _, t := range fields {
		value, ok := tags[t.name]
		source := "tag " + t.name
		if !ok && env != nil {
			source = "$" + EnvPrefix + strings.ToUpper(t.name)
			value = env(EnvPrefix + strings.ToUpper(t.name))
			ok = value != ""
		}
		if !ok {
			continue
		}
		x, msg := l.tagValue(t, value, source)
		if msg != "" {
			problems = append(problems, Problem{Pos: Pos{File: source}, Msg: msg})
			continue
		}
		t.field.Value = ast.NewBinExpr(token.AND, t.field.Value, x)
	}
	return problems
}

// tagValue parses a tag's value according to its type.
func (l *locator) tagValue(t tagField, value, source string) (ast.Expr, string) {
	bad := fmt.Sprintf("invalid value %q for tag %s: want %s", value, t.name, map[string]string{
		"int": "an integer", "number": "a number", "bool": "true or false",
	}[t.kind])
	switch t.kind {
	case "int", "number":
		x, err := parser.ParseExpr(source, value)
		if err != nil {
			return nil, bad
		}
		lit, ok := x.(*ast.BasicLit)
		if u, isUnary := x.(*ast.UnaryExpr); isUnary && (u.Op == token.SUB || u.Op == token.ADD) {
			lit, ok = u.X.(*ast.BasicLit)
		}
		if !ok || !(lit.Kind == token.INT || t.kind == "number" && lit.Kind == token.FLOAT) {
			return nil, bad
		}
		l.synthetic[x.Pos().File()] = true
		return x, ""
	case "bool":
		if value != "true" && value != "false" {
			return nil, bad
		}
		b := ast.NewBool(value == "true")
		b.ValuePos = l.syntheticPos(source)
		return b, ""
	}
	s := ast.NewString(value)
	s.ValuePos = l.syntheticPos(source)
	return s, ""
}
