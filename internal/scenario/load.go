// Package scenario loads vbench scenarios.
//
// A scenario is written as CUE, YAML or JSON files. [LoadFiles] unifies them
// with each other and with the embedded schema's #Scenario (package
// [github.com/vbench/vbench/schema]), applies --set overrides and @tag
// values, fills in every default (those of `vllm bench serve`), requires
// the result to be concrete, decodes it into a [Scenario] and checks
// vLLM's cross-field rules ([Scenario.Validate]). Problems are reported as
// an [*Error] naming file:line:col and the field.
//
// A resolved scenario has a canonical JSON form ([Scenario.Canonical]) and
// a hash of it ([Scenario.Hash]), and can be written back out as a
// scenario file ([Export]).
//
// cue.Value never leaves this package: the rest of vbench works with the
// plain Go structs of types.go.
package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"
	cuejson "cuelang.org/go/encoding/json"
	cueyaml "cuelang.org/go/encoding/yaml"
)

// Options control how LoadFiles, LoadBytes and LoadSources resolve a scenario.
type Options struct {
	// Sets are overrides "path=value" applied after the files, in order,
	// like --set: the value replaces whatever the files say at the field
	// path (a CUE path such as load.num_prompts or target.headers."X-Key").
	// The value is parsed as a CUE or JSON literal (10, 2.5, true, null,
	// "quoted", [1, 2], {"a": 1}) and taken as a plain string when it is
	// not one, so target.base_url=http://h:8000 needs no quotes.
	Sets []string

	// Tags give values to fields marked @tag(name) in CUE files, as
	// `cue -t name=value` does. The value is unified with the field, so it
	// overrides a default (`*"x" | string @tag(name)`) but conflicts with
	// a concrete value. @tag(name,type=int) (or number, bool) parses the
	// value as that type; the default type is string. A tag that no field
	// declares is an error.
	Tags map[string]string

	// Env, when not nil, supplies every declared tag missing from Tags:
	// @tag(url) takes the value of VBENCH_URL, if that is not empty. A tag
	// with no value leaves its field as written (its default applies).
	Env func(string) string

	// Dir is the directory file names in errors are shown relative to;
	// empty means the process's working directory.
	Dir string

	// Check, when not nil, checks the resolved scenario further (rules
	// that need other packages, such as whether a gate's metric will be in
	// the results). Each problem it returns names a field by Path, in CUE
	// syntax ("compare.gates[0].metric"), and is placed at that field in
	// the user's input (file:line:col); any problem makes the load fail
	// with an [*Error].
	Check func(*Scenario) []Problem

	// Note, when not nil, receives notes on how the inputs were combined
	// where a later input replaced more than the field it sets: a base
	// URL given by a later file or --set replaces an earlier simulator
	// (and a later simulator an earlier base URL).
	Note func(msg string)
}

// Source is one scenario input held in memory.
type Source struct {
	// Name names the input in errors; its extension (.cue, .yaml, .yml or
	// .json) selects the format.
	Name string
	// Data is the content.
	Data []byte
}

// LoadFiles reads the scenario files, unifies them with each other and with the
// schema, applies opts, and returns the resolved, validated scenario. With
// no files, the scenario is the schema's defaults plus opts. An invalid
// scenario, or a file that cannot be read, is an [*Error].
func LoadFiles(files []string, opts Options) (*Scenario, error) {
	dir := opts.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	loc := &locator{dir: dir}
	srcs := make([]Source, 0, len(files))
	var problems []Problem
	var cause error
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			msg := err.Error()
			var pe *fs.PathError
			if errors.As(err, &pe) {
				msg = pe.Err.Error()
			}
			problems = append(problems, Problem{Pos: Pos{File: loc.displayName(name)}, Msg: msg})
			if cause == nil {
				cause = err
			}
			continue
		}
		srcs = append(srcs, Source{Name: name, Data: data})
	}
	if len(problems) > 0 {
		return nil, newError(cause, problems...)
	}
	opts.Dir = dir
	return LoadSources(srcs, opts)
}

// LoadBytes is LoadFiles of one in-memory input; name's extension selects the
// format.
func LoadBytes(name string, data []byte, opts Options) (*Scenario, error) {
	return LoadSources([]Source{{Name: name, Data: data}}, opts)
}

// LoadSources is LoadFiles of in-memory inputs.
func LoadSources(srcs []Source, opts Options) (*Scenario, error) {
	cs, err := loadSchema()
	if err != nil {
		return nil, err
	}
	dir := opts.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	loc := &locator{dir: dir, synthetic: map[*token.File]bool{}}
	switch {
	case len(srcs) > 0:
		loc.fallback = Pos{File: loc.displayName(srcs[0].Name)}
	case len(opts.Sets) > 0:
		loc.fallback = Pos{File: setSource(opts.Sets[0])}
	}

	var problems []Problem
	files := make([]*ast.File, 0, len(srcs))
	for _, src := range srcs {
		f, ps := loc.parse(src, cs)
		problems = append(problems, ps...)
		if f != nil {
			files = append(files, f)
		}
	}
	var overrides []override
	for _, arg := range opts.Sets {
		o, p := loc.parseSet(arg)
		if p != nil {
			problems = append(problems, *p)
			continue
		}
		overrides = append(overrides, o)
	}
	problems = append(problems, unknownTags(opts.Tags, loc.declaredTags(files))...)
	if len(problems) > 0 {
		return nil, newError(nil, problems...)
	}
	inject := func(files []*ast.File) []Problem {
		return loc.injectTags(files, opts.Tags, opts.Env)
	}
	s, err := loc.resolve(cs, files, overrides, inject)
	if err != nil {
		return nil, err
	}
	if problems := loc.checkExperiments(s, cs); len(problems) > 0 {
		return nil, newError(nil, problems...)
	}
	if problems := loc.runCheck(s, cs, opts.Check); len(problems) > 0 {
		return nil, newError(nil, problems...)
	}
	if opts.Note != nil {
		for _, n := range loc.notes {
			opts.Note(n)
		}
	}
	return s, nil
}

// defaultScenario is the scenario with every default, loaded once.
var defaultScenario = sync.OnceValues(func() (*Scenario, error) {
	return LoadSources(nil, Options{})
})

// Default returns the scenario an empty file gives: every field at the
// schema's default, which is `vllm bench serve`'s. It panics if the
// embedded schema is broken, which its tests rule out.
func Default() *Scenario {
	s, err := defaultScenario()
	if err != nil {
		panic(fmt.Sprintf("internal error: default scenario: %v", err))
	}
	return s.clone()
}

// parse reads one input into a CUE file, without its package clause so
// that files of any (or no) package unify.
func (l *locator) parse(src Source, cs *compiledSchema) (*ast.File, []Problem) {
	var f *ast.File
	var err error
	ext := strings.ToLower(filepath.Ext(src.Name))
	switch ext {
	case ".cue":
		f, err = parser.ParseFile(src.Name, src.Data, parser.ParseComments)
	case ".yaml", ".yml":
		f, err = cueyaml.Extract(src.Name, src.Data)
		if err == nil {
			if p, ok := l.yamlSecondDocument(src); ok {
				return nil, []Problem{p}
			}
			yamlInf(f)
		}
	case ".json":
		var x ast.Expr
		x, err = cuejson.Extract(src.Name, src.Data)
		if err == nil {
			f = exprFile(src.Name, x)
		}
	default:
		return nil, []Problem{{Pos: Pos{File: l.displayName(src.Name)}, Msg: fmt.Sprintf("unsupported file type %q: want .cue, .yaml, .yml or .json", ext)}}
	}
	if err != nil {
		var cerr cueerrors.Error
		if !errors.As(err, &cerr) {
			if ext == ".yaml" || ext == ".yml" {
				if p, ok := l.yamlProblem(src); ok {
					return nil, []Problem{p}
				}
			}
			return nil, []Problem{l.plainProblem(src.Name, err)}
		}
		return nil, l.problems(err, cs)
	}
	decls := f.Decls[:0]
	for _, d := range f.Decls {
		if _, ok := d.(*ast.Package); !ok {
			decls = append(decls, d)
		}
	}
	f.Decls = decls
	return f, nil
}

// plainProblem converts an error without CUE positions, such as the YAML
// parser's "name:line: message", into a problem.
func (l *locator) plainProblem(name string, err error) Problem {
	msg := err.Error()
	p := Pos{File: l.displayName(name)}
	if rest, ok := strings.CutPrefix(msg, name+":"); ok {
		msg = strings.TrimSpace(rest)
		if num, after, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				p.Line, msg = n, after
			}
		}
	}
	return Problem{Pos: p, Msg: msg}
}

// yamlInf turns YAML's positive infinity (.inf), which CUE numbers cannot
// hold, into the string "inf" that request_rate, burstiness and
// asr_max_audio_len_sec take.
func yamlInf(f *ast.File) {
	ast.Walk(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.FLOAT && strings.EqualFold(strings.TrimPrefix(lit.Value, "+"), "inf") {
			lit.Kind, lit.Value = token.STRING, `"inf"`
		}
		return true
	}, nil)
}

// exprFile makes a file of a top-level expression: a struct's fields, or
// the expression embedded.
func exprFile(name string, x ast.Expr) *ast.File {
	if st, ok := x.(*ast.StructLit); ok {
		return &ast.File{Filename: name, Decls: st.Elts}
	}
	return &ast.File{Filename: name, Decls: []ast.Decl{&ast.EmbedDecl{Expr: x}}}
}

// resolve applies the overrides to files (removing what they replace,
// then adding them as files), lets inject modify the files (tags), unifies
// everything with the schema, and decodes and validates the result.
func (l *locator) resolve(cs *compiledSchema, files []*ast.File, overrides []override, inject func([]*ast.File) []Problem) (s *Scenario, err error) {
	overrides, notes := l.chooseTarget(files, overrides)
	l.notes = append(l.notes, notes...)
	all := files
	for _, o := range overrides {
		if o.replace {
			for _, f := range all {
				f.Decls = removeField(f.Decls, o.labels)
			}
		}
		all = append(all, o.file(l))
	}
	if inject != nil {
		if problems := inject(all); len(problems) > 0 {
			return nil, newError(nil, problems...)
		}
	}

	cueMu.Lock()
	defer cueMu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("internal error: evaluating scenario: %v", r)
		}
	}()

	inst := build.NewContext().NewInstance("", nil)
	for _, f := range all {
		if err := inst.AddSyntax(f); err != nil {
			return nil, newError(err, l.problems(err, cs)...)
		}
	}
	if inst.Err != nil {
		return nil, newError(inst.Err, l.problems(inst.Err, cs)...)
	}
	// Errors within the user's inputs (a conflict between two files) show
	// up again, with the schema's, when validating the unification.
	user := cuecontext.New().BuildInstance(inst)
	l.user = user
	v := cs.def.Unify(user)
	for _, d := range userDefaults(user) {
		v = v.FillPath(d.path, d.value)
	}
	if err := v.Validate(cue.Concrete(true)); err != nil {
		return nil, newError(err, l.problems(err, cs)...)
	}
	data, err := v.MarshalJSON()
	if err != nil {
		return nil, newError(err, l.problems(err, cs)...)
	}
	s, err = l.decode(data, cs)
	if err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		var e *Error
		if !errors.As(err, &e) {
			return nil, err
		}
		problems := make([]Problem, len(e.Problems))
		for i, p := range e.Problems {
			problems[i] = l.place(p, cs)
		}
		return nil, newError(nil, problems...)
	}
	return s, nil
}

// decode decodes the resolved JSON into a Scenario. A number too large for
// its Go field is the user's problem; any other mismatch between the
// schema and the Go types is an internal error.
func (l *locator) decode(data []byte, cs *compiledSchema) (*Scenario, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Scenario
	if err := dec.Decode(&s); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && strings.HasPrefix(te.Value, "number") {
			labels := strings.Split(te.Field, ".")
			if te.Field == "" {
				labels = nil
			}
			p := NewProblem(fmt.Sprintf("%s out of range for a %s", te.Value, te.Type), labels...)
			return nil, newError(err, l.place(p, cs))
		}
		return nil, fmt.Errorf("internal error: decode resolved scenario: %w", err)
	}
	// metrics.steady_state true is the default, held as nil (see
	// Metrics.SteadyState).
	if m := &s.Metrics; m.SteadyState != nil && *m.SteadyState {
		m.SteadyState = nil
	}
	// target.stream_counting "vllm" is the default, held as "", so that
	// saying it changes no hash.
	if s.Target.StreamCounting == "vllm" {
		s.Target.StreamCounting = ""
	}
	return &s, nil
}
