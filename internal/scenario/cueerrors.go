package scenario

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/token"

	"github.com/vbench/vbench/internal/typo"
)

// locator turns CUE positions into user-facing ones.
type locator struct {
	// dir is the directory file names are shown relative to.
	dir string
	// synthetic marks the token files of command-line values (--set, tags),
	// shown by name without line and column.
	synthetic map[*token.File]bool
	// user is the unification of the user's inputs without the schema,
	// used to find where a field was written when an error has no position
	// of its own. It may be the zero Value.
	user cue.Value
	// fallback is shown when nothing better is known.
	fallback Pos
	// notes say how the inputs were combined where that is not obvious
	// (an overlay's base URL replacing a base's simulator).
	notes []string
}

// pos converts p, relative to l.dir.
func (l *locator) pos(p token.Pos) Pos {
	if l.synthetic[p.File()] {
		return Pos{File: p.Filename()}
	}
	return Pos{File: l.displayName(p.Filename()), Line: p.Line(), Col: p.Column()}
}

// displayName shows a file name relative to l.dir when it is under it.
func (l *locator) displayName(name string) string {
	if l.dir != "" && filepath.IsAbs(name) {
		if rel, err := filepath.Rel(l.dir, name); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			name = rel
		}
	}
	return filepath.ToSlash(name)
}

// find returns where the field at sels, or its nearest written ancestor,
// appears in the user's input.
func (l *locator) find(sels []cue.Selector, cs *compiledSchema) Pos {
	if l.user.Exists() {
		for n := len(sels); n > 0; n-- {
			v := l.user.LookupPath(cue.MakePath(sels[:n]...))
			if !v.Exists() {
				continue
			}
			if p := v.Pos(); p.IsValid() && !cs.isSchemaPos(p) {
				return l.pos(p)
			}
		}
	}
	return l.fallback
}

// place fills in p.Pos from the user's input when it has none.
func (l *locator) place(p Problem, cs *compiledSchema) Problem {
	if p.Pos.File == "" {
		p.Pos = l.find(p.elems, cs)
	}
	return p
}

// cueError is one CUE error before clean-up.
type cueError struct {
	sels    []cue.Selector
	path    string
	format  string
	args    []any
	text    string      // the error's own text, for errors without a format
	user    []token.Pos // positions outside the schema
	schema  []token.Pos // positions in the schema
	deflt   bool        // a schema position lies in a default expression
	header  bool        // "N errors in empty disjunction:"
	folded  bool        // shown as part of a "want one of" message
	dropped bool
}

// scope is the path other errors must be related to for e to be noise: a
// default list's element is noise next to an error in another element.
func (e *cueError) scope() string {
	if n := len(e.sels); n > 0 && e.sels[n-1].Type() == cue.IndexLabel {
		return formatPath(e.sels[:n-1])
	}
	return e.path
}

func (e *cueError) msg() string {
	if len(e.args) == 0 && strings.Contains(e.format, "%") {
		return e.text
	}
	args := make([]any, len(e.args))
	for i, a := range e.args {
		args[i] = a
		// A whole struct or list (such as #Scenario itself, when the input
		// is not a struct) is too long to be useful.
		if s := fmt.Sprint(a); len(s) > 60 && (strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[")) {
			args[i] = s[:1] + "..." + map[byte]string{'{': "}", '[': "]"}[s[0]]
		}
	}
	return fmt.Sprintf(e.format, args...)
}

// redactedMsg is msg for a field whose values are secrets (see
// secretPath): every argument but a type name (string, list, ...) is
// replaced by RedactedValue, and a message without its format and
// arguments is replaced whole.
func (e *cueError) redactedMsg() string {
	if len(e.args) == 0 {
		if strings.Contains(e.format, "%") || e.format == "" {
			return "invalid value " + RedactedValue + " (header values are secret: the value is not shown)"
		}
		return e.format
	}
	args := make([]any, len(e.args))
	for i, a := range e.args {
		args[i] = RedactedValue
		if s := fmt.Sprint(a); kindNames(s) {
			args[i] = s
		}
	}
	return fmt.Sprintf(e.format, args...)
}

// kindNames reports whether s names CUE kinds only, such as "string" or
// "int|string": an error argument that shows no value.
func kindNames(s string) bool {
	for k := range strings.SplitSeq(strings.Trim(s, "()"), "|") {
		switch strings.TrimSpace(k) {
		case "string", "bytes", "int", "float", "number", "bool", "null", "list", "struct", "_", "_|_", "top", "bottom":
		default:
			return false
		}
	}
	return true
}

// secretPath reports whether sels leads into a map of header values
// (target.headers, a compare variant's, a sweep axis over them), whose
// values are secrets that an error must not show.
func secretPath(sels []cue.Selector) bool {
	for _, sel := range sels {
		if sel.Type() != cue.StringLabel {
			continue
		}
		for part := range strings.SplitSeq(sel.Unquoted(), ".") {
			if part == "headers" {
				return true
			}
		}
	}
	return false
}

// conflict returns the two values of a "conflicting values" error.
func (e *cueError) conflict() (a, b string, ok bool) {
	if !strings.HasPrefix(e.format, "conflicting values %s and %s") || len(e.args) < 2 {
		return "", "", false
	}
	return fmt.Sprint(e.args[0]), fmt.Sprint(e.args[1]), true
}

// problems converts a CUE error into user-facing problems. CUE reports a
// value that fits no branch of a disjunction such as `*1000 | int & >=0` as
// one error per branch; the branch that is only the default is noise (the
// user never asked for the default), so it is dropped, and branches that
// are alternatives of an enumeration are folded into one "want one of"
// message. Positions in the schema are left out: the user cannot edit it.
func (l *locator) problems(err error, cs *compiledSchema) []Problem {
	var all []*cueError
	for _, e := range errors.Errors(err) {
		format, args := e.Msg()
		ce := &cueError{format: format, args: args, text: e.Error(), header: strings.Contains(format, "errors in empty disjunction")}
		ce.sels = pathSelectors(e.Path())
		ce.path = formatPath(ce.sels)
		seen := map[token.Pos]bool{}
		for _, p := range errors.Positions(e) {
			if !p.IsValid() || seen[p] {
				continue
			}
			seen[p] = true
			if cs.isSchemaPos(p) {
				ce.schema = append(ce.schema, p)
				ce.deflt = ce.deflt || cs.isDefaultPos(p)
			} else {
				ce.user = append(ce.user, p)
			}
		}
		all = append(all, ce)
	}

	related := func(a, b string) bool {
		return a == b || strings.HasPrefix(b, a+".") || strings.HasPrefix(b, a+"[") ||
			strings.HasPrefix(a, b+".") || strings.HasPrefix(a, b+"[")
	}
	var out []Problem
	emit := func(ce *cueError, msg string) {
		if secretPath(ce.sels) {
			msg = ce.redactedMsg()
		}
		p := Problem{Path: ce.path, Msg: msg, elems: ce.sels}
		for i, up := range ce.user {
			if i == 0 {
				p.Pos = l.pos(up)
			} else if o := l.pos(up); o != p.Pos && !slices.Contains(p.Others, o) {
				p.Others = append(p.Others, o)
			}
		}
		out = append(out, l.place(p, cs))
	}

	// Fold enumerations: every error at one path is a conflict between the
	// same user value and one allowed alternative.
	byPath := map[string][]*cueError{}
	var paths []string
	for _, ce := range all {
		if ce.header {
			continue
		}
		if _, ok := byPath[ce.path]; !ok {
			paths = append(paths, ce.path)
		}
		byPath[ce.path] = append(byPath[ce.path], ce)
	}
	for _, path := range paths {
		if msg, ok := foldEnum(byPath[path]); ok {
			for _, ce := range byPath[path] {
				ce.folded, ce.dropped = true, true
			}
			emit(byPath[path][0], msg)
		}
	}

	// Drop the default branch's error when another error explains the
	// same field, disjunction headers when their branches are shown, and a
	// type mismatch with one branch when the value has the right type for
	// another branch and that one says what is wrong (at the field or
	// inside it).
	explains := func(e *cueError) bool { return !e.header && (!e.deflt || e.folded) }
	mismatch := func(e *cueError) bool { return strings.Contains(e.format, "(mismatched types") }
	for _, ce := range all {
		if ce.dropped {
			continue
		}
		for _, other := range all {
			if other == ce || !explains(other) {
				continue
			}
			if (ce.deflt || ce.header) && related(ce.scope(), other.path) ||
				mismatch(ce) && !mismatch(other) && related(ce.path, other.path) && len(other.path) >= len(ce.path) {
				ce.dropped = true
				break
			}
		}
	}
	for _, ce := range all {
		if ce.dropped {
			continue
		}
		msg := ce.msg()
		if ce.header {
			msg = "no allowed value matches"
		}
		if ce.format == "field not allowed" && len(ce.sels) > 0 {
			last := ce.sels[len(ce.sels)-1]
			if last.Type() == cue.StringLabel {
				name := last.Unquoted()
				names := cs.fieldNames(ce.sels[:len(ce.sels)-1])
				if s := typo.Suggest(name, names, min(2, max(1, len(name)/4))); s != "" {
					msg += fmt.Sprintf(" (did you mean %s?)", s)
				} else if names = slices.Compact(slices.Sorted(slices.Values(names))); len(names) > 0 {
					msg += fmt.Sprintf(" (allowed: %s)", strings.Join(names, ", "))
				}
			}
		}
		emit(ce, msg)
	}
	return out
}

// foldEnum folds conflicts between one value and several alternatives
// into "invalid value X (want one of A, B)". A default alternative that a
// type alternative already admits (1000 next to int) is left out; with
// fewer than two alternatives left there is nothing to fold.
func foldEnum(errs []*cueError) (string, bool) {
	if len(errs) < 2 {
		return "", false
	}
	var counts = map[string]int{}
	type pair struct{ a, b string }
	pairs := make([]pair, len(errs))
	for i, ce := range errs {
		a, b, ok := ce.conflict()
		if !ok || len(ce.schema) == 0 {
			// Not a conflict, or one between the user's own values.
			return "", false
		}
		pairs[i] = pair{a, b}
		counts[a]++
		if b != a {
			counts[b]++
		}
	}
	common := ""
	for _, p := range pairs {
		for _, s := range []string{p.a, p.b} {
			if counts[s] == len(errs) {
				common = s
			}
		}
	}
	if common == "" {
		return "", false
	}
	type alt struct {
		text  string
		deflt bool
	}
	var alts []alt
	for i, p := range pairs {
		text := p.a
		if text == common {
			text = p.b
		}
		alts = append(alts, alt{text, errs[i].deflt})
	}
	var types []string
	for _, a := range alts {
		k := typeKind(a.text)
		if k == "" && literalKind(a.text) == "" {
			return "", false // a struct, list or constraint: not an enumeration
		}
		if k != "" {
			types = append(types, k)
		}
	}
	var texts []string
	for _, a := range alts {
		if a.deflt && slices.Contains(types, literalKind(a.text)) {
			continue
		}
		if !slices.Contains(texts, a.text) {
			texts = append(texts, a.text)
		}
	}
	if len(texts) < 2 {
		return "", false
	}
	return fmt.Sprintf("invalid value %s (want one of %s)", common, strings.Join(texts, ", ")), true
}

// typeKind returns the kind a CUE type name admits ("number", "string",
// "bool"), or "" if s is not a type name.
func typeKind(s string) string {
	switch s {
	case "string":
		return "string"
	case "bool":
		return "bool"
	case "number", "int", "float", "uint", "int8", "int16", "int32", "int64", "int128",
		"uint8", "uint16", "uint32", "uint64", "uint128", "float32", "float64":
		return "number"
	}
	return ""
}

// literalKind returns the kind of a CUE literal ("number", "string",
// "bool"), or "".
func literalKind(s string) string {
	switch {
	case strings.HasPrefix(s, `"`):
		return "string"
	case s == "true" || s == "false":
		return "bool"
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return "number"
	}
	return ""
}

// pathSelectors converts the path of a CUE error to selectors, dropping
// the leading #Scenario of errors found while unifying with the schema.
func pathSelectors(elems []string) []cue.Selector {
	if len(elems) > 0 && elems[0] == "#Scenario" {
		elems = elems[1:]
	}
	sels := make([]cue.Selector, 0, len(elems))
	for _, e := range elems {
		switch {
		case strings.HasPrefix(e, `"`) || strings.HasPrefix(e, "#\""):
			if s, err := literal.Unquote(e); err == nil {
				sels = append(sels, cue.Str(s))
			} else {
				sels = append(sels, cue.Str(e))
			}
		case strings.HasPrefix(e, "#"):
			sels = append(sels, cue.Def(e))
		case e != "" && strings.Trim(e, "0123456789") == "":
			n, err := strconv.Atoi(e)
			if err != nil {
				sels = append(sels, cue.Str(e))
			} else {
				sels = append(sels, cue.Index(n))
			}
		default:
			sels = append(sels, cue.Str(e))
		}
	}
	return sels
}

// fieldNames returns the names of the fields the schema allows at the
// path sels of #Scenario (regular and optional ones), or nil when the
// path leads nowhere in the schema.
func (cs *compiledSchema) fieldNames(sels []cue.Selector) []string {
	v := cs.def
	for _, sel := range sels {
		switch sel.Type() {
		case cue.IndexLabel:
			v = v.LookupPath(cue.MakePath(cue.AnyIndex))
		case cue.StringLabel:
			w := v.LookupPath(cue.MakePath(sel))
			if !w.Exists() {
				w = v.LookupPath(cue.MakePath(sel.Optional()))
			}
			v = w
		default:
			return nil
		}
		if !v.Exists() {
			return nil
		}
	}
	return structFieldNames(v)
}

// structFieldNames returns the field names of a struct value, or of the
// struct branches of a disjunction (such as number | {input, output}).
func structFieldNames(v cue.Value) []string {
	if op, args := v.Expr(); op == cue.OrOp {
		var names []string
		for _, a := range args {
			names = append(names, structFieldNames(a)...)
		}
		return names
	}
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return nil
	}
	var names []string
	for it.Next() {
		if sel := it.Selector(); sel.Type()&cue.StringLabel != 0 {
			names = append(names, sel.Unquoted())
		}
	}
	return names
}
