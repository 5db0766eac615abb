package scenario

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"

	"github.com/vbench/vbench/schema"
)

// compiledSchema is the embedded schema, compiled once per process.
type compiledSchema struct {
	// def is #Scenario.
	def cue.Value
	// version is #Version.
	version string
	// backends are the backend enumerations.
	backends schemaBackends
	// files are the schema's source files.
	files map[*token.File]bool
	// defaults holds, per schema file, the byte ranges of the default
	// (*-marked) expressions, to tell errors against a default apart.
	defaults map[*token.File][][2]int
}

var (
	// cueMu serialises every evaluation that touches the shared schema
	// value: cue.Value is not safe for concurrent use.
	cueMu sync.Mutex

	// schemaLoad holds the function that compiles the schema once; a test
	// that extends the schema (ExtendSchemaForTest) swaps it.
	schemaLoad = struct {
		sync.Mutex
		load  func() (*compiledSchema, error)
		extra []schemaFile
	}{load: sync.OnceValues(func() (*compiledSchema, error) { return compileSchema(nil) })}
)

// schemaFile is a CUE file of package schema that a test adds to the
// embedded ones.
type schemaFile struct {
	name string
	data []byte
}

// loadSchema returns the compiled schema. The cue.Context it uses is never
// used for anything else: a value keeps its context's memory alive, and
// this one lives as long as the process.
func loadSchema() (*compiledSchema, error) {
	schemaLoad.Lock()
	load := schemaLoad.load
	schemaLoad.Unlock()
	return load()
}

// ExtendSchemaForTest adds a CUE file of package schema to the embedded
// schema until the returned function is called, which restores the
// schema as it was. It is for tests that add a toy dataset kind: the
// file declares its section, e.g. "#Dataset: toy?: {path: string}".
// Tests that call it must not run in parallel with tests that load
// scenarios.
func ExtendSchemaForTest(name string, src []byte) (restore func()) {
	schemaLoad.Lock()
	defer schemaLoad.Unlock()
	prevLoad, prevExtra := schemaLoad.load, schemaLoad.extra
	extra := append(slices.Clip(prevExtra), schemaFile{name: name, data: src})
	schemaLoad.load, schemaLoad.extra = sync.OnceValues(func() (*compiledSchema, error) { return compileSchema(extra) }), extra
	return func() {
		schemaLoad.Lock()
		defer schemaLoad.Unlock()
		schemaLoad.load, schemaLoad.extra = prevLoad, prevExtra
	}
}

// compileSchema compiles the embedded schema and the extra files.
func compileSchema(extra []schemaFile) (*compiledSchema, error) {
	entries, err := fs.ReadDir(schema.FS, ".")
	if err != nil {
		return nil, fmt.Errorf("read embedded schema: %w", err)
	}
	files := make([]schemaFile, 0, len(entries)+len(extra))
	for _, e := range entries {
		if path.Ext(e.Name()) != ".cue" {
			continue
		}
		data, err := fs.ReadFile(schema.FS, e.Name())
		if err != nil {
			return nil, fmt.Errorf("read embedded schema: %w", err)
		}
		files = append(files, schemaFile{name: e.Name(), data: data})
	}
	files = append(files, extra...)
	inst := build.NewContext().NewInstance("", nil)
	cs := &compiledSchema{files: map[*token.File]bool{}, defaults: map[*token.File][][2]int{}}
	for _, sf := range files {
		f, err := parser.ParseFile("vbench-schema/"+sf.name, sf.data, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("parse embedded schema: %w", err)
		}
		ast.Walk(f, func(n ast.Node) bool {
			if p := n.Pos(); p.IsValid() {
				cs.files[p.File()] = true
			}
			if u, ok := n.(*ast.UnaryExpr); ok && u.Op == token.MUL {
				tf := u.Pos().File()
				cs.defaults[tf] = append(cs.defaults[tf], [2]int{u.Pos().Offset(), u.End().Offset()})
			}
			return true
		}, nil)
		if err := inst.AddSyntax(f); err != nil {
			return nil, fmt.Errorf("embedded schema: %w", err)
		}
	}
	v := cuecontext.New().BuildInstance(inst)
	if err := v.Validate(); err != nil {
		return nil, fmt.Errorf("embedded schema: %s", errors.Details(err, nil))
	}
	cs.def = v.LookupPath(cue.MakePath(cue.Def("#Scenario")))
	if err := cs.def.Err(); err != nil {
		return nil, fmt.Errorf("embedded schema: #Scenario: %w", err)
	}
	cs.version, err = v.LookupPath(cue.MakePath(cue.Def("#Version"))).String()
	if err != nil {
		return nil, fmt.Errorf("embedded schema: #Version: %w", err)
	}
	if cs.backends, err = readBackends(v); err != nil {
		return nil, err
	}
	return cs, nil
}

// isSchemaPos reports whether p lies in the embedded schema.
func (cs *compiledSchema) isSchemaPos(p token.Pos) bool {
	return cs.files[p.File()]
}

// isDefaultPos reports whether p lies inside a default (*-marked)
// expression of the schema.
func (cs *compiledSchema) isDefaultPos(p token.Pos) bool {
	for _, r := range cs.defaults[p.File()] {
		if off := p.Offset(); off >= r[0] && off < r[1] {
			return true
		}
	}
	return false
}

// SchemaFields returns the path of every leaf field of #Scenario, in
// schema order: a field whose value is not a struct with fields of its own
// (a scalar, a list, a map such as target.headers, or a disjunction such as
// dataset.random.range_ratio), optional fields included.
func SchemaFields() ([]string, error) {
	cs, err := loadSchema()
	if err != nil {
		return nil, err
	}
	cueMu.Lock()
	defer cueMu.Unlock()
	return schemaLeaves(cs.def, ""), nil
}

// schemaLeaves returns the path of every leaf field of v (SchemaFields).
func schemaLeaves(v cue.Value, prefix string) []string {
	var out []string
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return nil
	}
	for it.Next() {
		path := it.Selector().Unquoted()
		if prefix != "" {
			path = prefix + "." + path
		}
		f := it.Value()
		isMap := f.LookupPath(cue.MakePath(cue.AnyString)).Exists()
		if f.IncompleteKind() == cue.StructKind && !isMap {
			if sub := schemaLeaves(f, path); len(sub) > 0 {
				out = append(out, sub...)
				continue
			}
		}
		out = append(out, path)
	}
	return out
}
