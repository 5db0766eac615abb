package scenario

import (
	"fmt"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/token"
)

var (
	baseURLPath   = []string{"target", "base_url"}
	simulatorPath = []string{"target", "simulator"}
)

// targetChoice is what one input (a file or a --set) says about where
// requests go: a real server's base URL, the built-in simulator, or
// neither.
type targetChoice struct {
	source    string    // the file name or "--set path=value"
	baseURL   token.Pos // where it sets target.base_url (not as a default)
	simulator token.Pos // where it sets target.simulator
}

// chooseTarget applies the overlay rule to target.base_url and
// target.simulator, which exclude each other (a base URL means a real
// server; the simulator runs in-process): the later input decides. When a
// later file or --set gives a base URL, the simulator of the earlier
// inputs is removed (and the other way round), and a note says so. Within
// one input the simulator wins, as the schema says (base_url is then
// unused): a resolved scenario may hold both, a base's default base_url
// and an overlay's simulator, and its export must load again. It returns
// the overrides to keep and the notes.
func (l *locator) chooseTarget(files []*ast.File, overrides []override) ([]override, []string) {
	var choices []targetChoice
	for _, f := range files {
		choices = append(choices, targetChoice{
			source:    l.displayName(f.Filename),
			baseURL:   explicitField(f.Decls, baseURLPath),
			simulator: explicitField(f.Decls, simulatorPath),
		})
	}
	for _, o := range overrides {
		c := targetChoice{source: o.source}
		switch {
		case equalLabels(o.labels, baseURLPath):
			c.baseURL = o.expr.Pos()
		case len(o.labels) >= 2 && equalLabels(o.labels[:2], simulatorPath):
			c.simulator = o.expr.Pos()
		}
		choices = append(choices, c)
	}

	last := -1 // the last input that chooses
	for i, c := range choices {
		if c.baseURL.IsValid() || c.simulator.IsValid() {
			last = i
		}
	}
	if last < 0 {
		return overrides, nil
	}
	winner := choices[last]
	drop, dropName := simulatorPath, "simulator"
	if winner.simulator.IsValid() {
		drop, dropName = baseURLPath, "base URL"
	}
	var notes []string
	for i := range last {
		c := choices[i]
		if (dropName == "simulator" && !c.simulator.IsValid()) || (dropName == "base URL" && !c.baseURL.IsValid()) {
			continue
		}
		if dropName == "simulator" {
			notes = append(notes, fmt.Sprintf("target.base_url from %s replaces the built-in simulator of %s: requests go to that server", winner.source, c.source))
		} else {
			notes = append(notes, fmt.Sprintf("target.simulator from %s replaces target.base_url of %s: requests go to the built-in simulator", winner.source, c.source))
		}
		if i < len(files) {
			files[i].Decls = removeField(files[i].Decls, drop)
		} else {
			overrides[i-len(files)].dropped = true
		}
	}
	kept := overrides[:0:0]
	for _, o := range overrides {
		if !o.dropped {
			kept = append(kept, o)
		}
	}
	return kept, notes
}

func equalLabels(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// explicitField returns the position of the field at the path of labels in
// decls, following nested struct literals, embedded structs and the
// operands of &, as removeField does; a value that is a default (a
// disjunction with a *-marked value, such as kimi-8k's
// `base_url: *"http://127.0.0.1:8000" | string`) does not count. It
// returns an invalid position when there is none.
func explicitField(decls []ast.Decl, labels []string) token.Pos {
	for _, d := range decls {
		switch d := d.(type) {
		case *ast.Field:
			name, _, err := ast.LabelName(d.Label)
			if err != nil || name != labels[0] || isHiddenOrDef(d.Label) {
				continue
			}
			if len(labels) == 1 {
				if !isDefault(d.Value) {
					return d.Label.Pos()
				}
				continue
			}
			if p := explicitIn(d.Value, labels[1:]); p.IsValid() {
				return p
			}
		case *ast.EmbedDecl:
			if p := explicitIn(d.Expr, labels); p.IsValid() {
				return p
			}
		}
	}
	return token.NoPos
}

func explicitIn(x ast.Expr, labels []string) token.Pos {
	switch x := x.(type) {
	case *ast.StructLit:
		return explicitField(x.Elts, labels)
	case *ast.BinaryExpr:
		if x.Op == token.AND {
			if p := explicitIn(x.X, labels); p.IsValid() {
				return p
			}
			return explicitIn(x.Y, labels)
		}
	case *ast.ParenExpr:
		return explicitIn(x.X, labels)
	}
	return token.NoPos
}

// isDefault reports whether x is a disjunction with a default (*) value.
func isDefault(x ast.Expr) bool {
	switch x := x.(type) {
	case *ast.BinaryExpr:
		if x.Op == token.OR {
			return isDefault(x.X) || isDefault(x.Y)
		}
	case *ast.UnaryExpr:
		return x.Op == token.MUL
	case *ast.ParenExpr:
		return isDefault(x.X)
	}
	return false
}
