package scenario

import (
	"fmt"
	"io/fs"
	"path"
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

	// loadSchema compiles the schema. The cue.Context it uses is never used
	// for anything else: a value keeps its context's memory alive, and this
	// one lives as long as the process.
	loadSchema = sync.OnceValues(func() (*compiledSchema, error) {
		entries, err := fs.ReadDir(schema.FS, ".")
		if err != nil {
			return nil, fmt.Errorf("read embedded schema: %w", err)
		}
		inst := build.NewContext().NewInstance("", nil)
		cs := &compiledSchema{files: map[*token.File]bool{}, defaults: map[*token.File][][2]int{}}
		for _, e := range entries {
			if path.Ext(e.Name()) != ".cue" {
				continue
			}
			data, err := fs.ReadFile(schema.FS, e.Name())
			if err != nil {
				return nil, fmt.Errorf("read embedded schema: %w", err)
			}
			f, err := parser.ParseFile("vbench-schema/"+e.Name(), data, parser.ParseComments)
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
	})
)

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
