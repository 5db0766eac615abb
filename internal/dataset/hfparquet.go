package dataset

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
)

// pqKind is what a parquet schema node decodes to.
type pqKind int

const (
	pqLeaf  pqKind = iota // a value
	pqGroup               // map[string]any of its fields
	pqList                // []any of its element
	pqMap                 // map[string]any of its key_value entries
)

// pqNode decodes one schema node from its leaf columns' values, using the
// Dremel levels: def is the definition level at which the node is present
// (not null); for a list or a map, elemDef is the level at which it has
// an element and rep the repetition level that starts a new element.
type pqNode struct {
	name         string
	kind         pqKind
	def          int
	elemDef, rep int
	col, ncols   int // its leaf columns: [col, col+ncols)
	fields       []*pqNode
	leaf         parquet.Node
}

// pqSchema is the decoder of a file's rows.
type pqSchema struct {
	fields []*pqNode
	ncols  int
}

func newPQSchema(s *parquet.Schema) (*pqSchema, error) {
	ps := &pqSchema{}
	col := 0
	for _, f := range s.Fields() {
		n, err := buildPQNode(f, f.Name(), 0, 0, &col, false)
		if err != nil {
			return nil, err
		}
		ps.fields = append(ps.fields, n)
	}
	ps.ncols = col
	return ps, nil
}

func logicalIs[T any](n parquet.Node) bool {
	lt := n.Type().LogicalType()
	if lt == nil || lt.Value == nil {
		return false
	}
	_, ok := lt.Value.(T)
	return ok
}

func convertedIs(n parquet.Node, ct ...deprecated.ConvertedType) bool {
	c := n.Type().ConvertedType()
	if c == nil {
		return false
	}
	for _, t := range ct {
		if *c == t {
			return true
		}
	}
	return false
}

// buildPQNode builds the decoder of node n under a parent present at
// definition level parentDef and repetition level parentRep. asRequired
// ignores n's own repetition (the element of a legacy repeated field).
func buildPQNode(n parquet.Node, name string, parentDef, parentRep int, col *int, asRequired bool) (*pqNode, error) {
	if n.Repeated() && !asRequired {
		// A repeated field without a LIST annotation: a list of its
		// values, empty when absent.
		elem, err := buildPQNode(n, name, parentDef+1, parentRep+1, col, true)
		if err != nil {
			return nil, err
		}
		return &pqNode{name: name, kind: pqList, def: parentDef, elemDef: parentDef + 1, rep: parentRep + 1,
			col: elem.col, ncols: elem.ncols, fields: []*pqNode{elem}}, nil
	}
	def := parentDef
	if n.Optional() && !asRequired {
		def++
	}
	if n.Leaf() {
		p := &pqNode{name: name, kind: pqLeaf, def: def, col: *col, ncols: 1, leaf: n}
		*col++
		return p, nil
	}
	start := *col
	fields := n.Fields()
	switch {
	case !asRequired && (logicalIs[*format.ListType](n) || convertedIs(n, deprecated.List)) && len(fields) == 1 && fields[0].Repeated():
		rc := fields[0]
		var elem *pqNode
		var err error
		if !rc.Leaf() && len(rc.Fields()) == 1 && rc.Name() != "array" && rc.Name() != name+"_tuple" {
			// Three levels: LIST > repeated group > element.
			e := rc.Fields()[0]
			elem, err = buildPQNode(e, e.Name(), def+1, parentRep+1, col, false)
		} else {
			// Two levels: the repeated field is the element.
			elem, err = buildPQNode(rc, rc.Name(), def+1, parentRep+1, col, true)
		}
		if err != nil {
			return nil, err
		}
		return &pqNode{name: name, kind: pqList, def: def, elemDef: def + 1, rep: parentRep + 1,
			col: start, ncols: *col - start, fields: []*pqNode{elem}}, nil
	case !asRequired && (logicalIs[*format.MapType](n) || convertedIs(n, deprecated.Map, deprecated.MapKeyValue)) && len(fields) == 1 && fields[0].Repeated() && !fields[0].Leaf():
		kv := fields[0]
		var key, value *pqNode
		for _, f := range kv.Fields() {
			e, err := buildPQNode(f, f.Name(), def+1, parentRep+1, col, false)
			if err != nil {
				return nil, err
			}
			switch f.Name() {
			case "key":
				key = e
			case "value":
				value = e
			}
		}
		if key == nil || value == nil || key.kind != pqLeaf {
			return nil, fmt.Errorf("column %q: a MAP without a key and a value", name)
		}
		return &pqNode{name: name, kind: pqMap, def: def, elemDef: def + 1, rep: parentRep + 1,
			col: start, ncols: *col - start, fields: []*pqNode{key, value}}, nil
	}
	g := &pqNode{name: name, kind: pqGroup, def: def}
	for _, f := range fields {
		c, err := buildPQNode(f, f.Name(), def, parentRep, col, false)
		if err != nil {
			return nil, err
		}
		g.fields = append(g.fields, c)
	}
	g.col, g.ncols = start, *col-start
	return g, nil
}

// decode decodes the node from cs, its columns' values in scope (cs[i]
// holds column n.col+i's).
func (n *pqNode) decode(cs [][]parquet.Value) (any, error) {
	if len(cs) == 0 || len(cs[0]) == 0 {
		return nil, fmt.Errorf("column %q: no value", n.name)
	}
	first := cs[0][0]
	if first.DefinitionLevel() < n.def {
		return nil, nil
	}
	switch n.kind {
	case pqLeaf:
		return pqValue(n.leaf, first), nil
	case pqGroup:
		m := make(map[string]any, len(n.fields))
		for _, f := range n.fields {
			v, err := f.decode(cs[f.col-n.col : f.col-n.col+f.ncols])
			if err != nil {
				return nil, err
			}
			m[f.name] = v
		}
		return m, nil
	}
	if first.DefinitionLevel() < n.elemDef {
		if n.kind == pqMap {
			return map[string]any{}, nil
		}
		return []any{}, nil
	}
	// Split each column at the values that start an element.
	count := 0
	for _, v := range cs[0] {
		if v.RepetitionLevel() <= n.rep {
			count++
		}
	}
	starts := make([][]int, len(cs))
	for j, c := range cs {
		s := make([]int, 0, count+1)
		for i, v := range c {
			if v.RepetitionLevel() <= n.rep {
				s = append(s, i)
			}
		}
		if len(s) != count {
			return nil, fmt.Errorf("column %q: its leaf columns disagree on the number of elements", n.name)
		}
		starts[j] = append(s, len(c))
	}
	window := func(e int, f *pqNode) [][]parquet.Value {
		w := make([][]parquet.Value, f.ncols)
		for j := range w {
			k := f.col - n.col + j
			w[j] = cs[k][starts[k][e]:starts[k][e+1]]
		}
		return w
	}
	if n.kind == pqList {
		elem := n.fields[0]
		out := make([]any, count)
		for e := range count {
			v, err := elem.decode(window(e, elem))
			if err != nil {
				return nil, err
			}
			out[e] = v
		}
		return out, nil
	}
	key, value := n.fields[0], n.fields[1]
	out := make(map[string]any, count)
	for e := range count {
		k, err := key.decode(window(e, key))
		if err != nil {
			return nil, err
		}
		v, err := value.decode(window(e, value))
		if err != nil {
			return nil, err
		}
		out[fmt.Sprint(k)] = v
	}
	return out, nil
}

// pqValue converts a present leaf value as the contract of hfRow says:
// numbers become float64, byte arrays strings.
func pqValue(n parquet.Node, v parquet.Value) any {
	switch v.Kind() {
	case parquet.Boolean:
		return v.Boolean()
	case parquet.Int32:
		if convertedIs(n, deprecated.Uint8, deprecated.Uint16, deprecated.Uint32) {
			return float64(uint32(v.Int32()))
		}
		return float64(v.Int32())
	case parquet.Int64:
		if convertedIs(n, deprecated.Uint64) {
			return float64(uint64(v.Int64()))
		}
		return float64(v.Int64())
	case parquet.Float:
		return float64(v.Float())
	case parquet.Double:
		return v.Double()
	case parquet.ByteArray, parquet.FixedLenByteArray:
		return string(v.ByteArray())
	}
	return v.String()
}

// decodeRow decodes one row; cs is scratch of the schema's column count.
func (ps *pqSchema) decodeRow(row parquet.Row, cs [][]parquet.Value) (hfRow, error) {
	for i := range cs {
		cs[i] = nil
	}
	// A row's values are in column order: cut it per column.
	for i := 0; i < len(row); {
		c := row[i].Column()
		j := i + 1
		for j < len(row) && row[j].Column() == c {
			j++
		}
		if c < 0 || c >= len(cs) {
			return nil, fmt.Errorf("a value of column %d, beyond the schema's %d", c, len(cs))
		}
		cs[c] = row[i:j]
		i = j
	}
	out := make(hfRow, len(ps.fields))
	for _, f := range ps.fields {
		v, err := f.decode(cs[f.col : f.col+f.ncols])
		if err != nil {
			return nil, err
		}
		out[f.name] = v
	}
	return out, nil
}

// pqBatch is how many rows a read takes.
const pqBatch = 128

// readParquetRows yields the rows of the parquet file at p (named name in
// errors), row group by row group, a batch at a time.
func readParquetRows(ctx context.Context, name, p string) iter.Seq2[hfRow, error] {
	return func(yield func(hfRow, error) bool) {
		f, err := os.Open(p)
		if err != nil {
			yield(nil, err)
			return
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			yield(nil, err)
			return
		}
		if st.Size() == 0 {
			yield(nil, fmt.Errorf("%s: the file is empty; expected a parquet file", name))
			return
		}
		pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
		if err != nil {
			yield(nil, fmt.Errorf("%s: not a readable parquet file: %v", name, err))
			return
		}
		ps, err := newPQSchema(pf.Schema())
		if err != nil {
			yield(nil, fmt.Errorf("%s: the schema: %v", name, err))
			return
		}
		cs := make([][]parquet.Value, ps.ncols)
		buf := make([]parquet.Row, pqBatch)
		row := 0
		for _, rg := range pf.RowGroups() {
			rows := rg.Rows()
			for {
				if err := ctx.Err(); err != nil {
					rows.Close()
					yield(nil, err)
					return
				}
				n, err := rows.ReadRows(buf)
				for i := range n {
					r, derr := ps.decodeRow(buf[i], cs)
					if derr != nil {
						rows.Close()
						yield(nil, fmt.Errorf("%s: row %d: %v", name, row, derr))
						return
					}
					row++
					if !yield(r, nil) {
						rows.Close()
						return
					}
				}
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					rows.Close()
					yield(nil, fmt.Errorf("%s: row %d: reading the parquet file: %v", name, row, err))
					return
				}
				if n == 0 {
					break
				}
			}
			rows.Close()
		}
		if row == 0 && len(pf.RowGroups()) == 0 && pf.NumRows() != 0 {
			yield(nil, fmt.Errorf("%s: the file says it has %d rows but holds no row group", name, pf.NumRows()))
		}
	}
}
