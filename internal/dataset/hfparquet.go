package dataset

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"runtime"
	"strings"
	"sync"
	"unsafe"

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
	conv         func(*pqSlab, parquet.Value) any // a leaf's conversion

	// Scratch of a list or map, reused: a node is never its own
	// descendant, so one decode of it at a time uses them.
	starts [][]int
	window [][]parquet.Value
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
		p := &pqNode{name: name, kind: pqLeaf, def: def, col: *col, ncols: 1, leaf: n, conv: pqConv(n)}
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
func (n *pqNode) decode(slab *pqSlab, cs [][]parquet.Value) (any, error) {
	if len(cs) == 0 || len(cs[0]) == 0 {
		return nil, fmt.Errorf("column %q: no value", n.name)
	}
	first := cs[0][0]
	if first.DefinitionLevel() < n.def {
		return nil, nil
	}
	switch n.kind {
	case pqLeaf:
		return n.conv(slab, first), nil
	case pqGroup:
		m := make(map[string]any, len(n.fields))
		for _, f := range n.fields {
			v, err := f.decode(slab, cs[f.col-n.col:f.col-n.col+f.ncols])
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
	if n.starts == nil {
		n.starts = make([][]int, len(cs))
		n.window = make([][]parquet.Value, len(cs))
	}
	starts := n.starts
	for j, c := range cs {
		s := starts[j][:0]
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
		w := n.window[f.col-n.col : f.col-n.col+f.ncols]
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
			v, err := elem.decode(slab, window(e, elem))
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
		k, err := key.decode(slab, window(e, key))
		if err != nil {
			return nil, err
		}
		v, err := value.decode(slab, window(e, value))
		if err != nil {
			return nil, err
		}
		out[fmt.Sprint(k)] = v
	}
	return out, nil
}

// pqConv returns the conversion of a leaf's present values, as the
// contract of hfRow says: numbers become float64, byte arrays strings.
func pqConv(n parquet.Node) func(*pqSlab, parquet.Value) any {
	switch n.Type().Kind() {
	case parquet.Boolean:
		return func(_ *pqSlab, v parquet.Value) any { return v.Boolean() }
	case parquet.Int32:
		if convertedIs(n, deprecated.Uint8, deprecated.Uint16, deprecated.Uint32) {
			return func(_ *pqSlab, v parquet.Value) any { return float64(uint32(v.Int32())) }
		}
		return func(_ *pqSlab, v parquet.Value) any { return float64(v.Int32()) }
	case parquet.Int64:
		if convertedIs(n, deprecated.Uint64) {
			return func(_ *pqSlab, v parquet.Value) any { return float64(uint64(v.Int64())) }
		}
		return func(_ *pqSlab, v parquet.Value) any { return float64(v.Int64()) }
	case parquet.Float:
		return func(_ *pqSlab, v parquet.Value) any { return float64(v.Float()) }
	case parquet.Double:
		return func(_ *pqSlab, v parquet.Value) any { return v.Double() }
	case parquet.ByteArray, parquet.FixedLenByteArray:
		return func(slab *pqSlab, v parquet.Value) any { return slab.string(v.ByteArray()) }
	}
	return func(_ *pqSlab, v parquet.Value) any { return v.String() }
}

// decodeRow decodes one row; cs is scratch of the schema's column count.
func (ps *pqSchema) decodeRow(slab *pqSlab, row parquet.Row, cs [][]parquet.Value) (hfRow, error) {
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
		v, err := f.decode(slab, cs[f.col:f.col+f.ncols])
		if err != nil {
			return nil, err
		}
		out[f.name] = v
	}
	return out, nil
}

// pqBatchRows is the most rows a read takes, pqBatchBytes about the most
// bytes (uncompressed, by the row group's average row size): a worker
// keeps at most a few batches ahead of the reader, so rows of images stay
// few while rows of text come 512 at a time.
const (
	pqBatchRows  = 512
	pqBatchBytes = 4 << 20
)

// pqMsg is a batch of decoded rows of one row group, or its end, or an
// error.
type pqMsg struct {
	rows []hfRow
	err  error
	end  bool
}

// readParquetRows yields the rows of the parquet file at p (named name in
// errors) in file order. Row groups are decoded in parallel, each by one
// of up to four workers that stay a few batches ahead of the reader (so
// memory stays bounded however large the file).
func readParquetRows(ctx context.Context, name, p string) iter.Seq2[hfRow, error] {
	return readParquetRowsN(ctx, name, p, pqMaxWorkers)
}

// pqMaxWorkers is how many row groups of one file decode at once.
const pqMaxWorkers = 4

// readParquetRowsN is readParquetRows with at most maxWorkers workers.
func readParquetRowsN(ctx context.Context, name, p string, maxWorkers int) iter.Seq2[hfRow, error] {
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
		if err := parquetMagic(f, st.Size()); err != nil {
			yield(nil, fmt.Errorf("%s: not a readable parquet file: %v", name, err))
			return
		}
		pf, err := openParquet(f, st.Size())
		if err != nil {
			yield(nil, fmt.Errorf("%s: not a readable parquet file: %v", name, err))
			return
		}
		groups := pf.RowGroups()
		if len(groups) == 0 && pf.NumRows() != 0 {
			yield(nil, fmt.Errorf("%s: the file says it has %d rows but holds no row group", name, pf.NumRows()))
			return
		}
		offsets := make([]int64, len(groups))
		batches := make([]int, len(groups))
		meta := pf.Metadata().RowGroups
		for g := range groups {
			if g > 0 {
				offsets[g] = offsets[g-1] + groups[g-1].NumRows()
			}
			batches[g] = pqBatchRows
			if g < len(meta) && meta[g].NumRows > 0 && meta[g].TotalByteSize > 0 {
				batches[g] = int(min(max(int64(pqBatchBytes)/(meta[g].TotalByteSize/meta[g].NumRows+1), 1), pqBatchRows))
			}
		}
		workers := min(runtime.GOMAXPROCS(0), len(groups), max(maxWorkers, 1))
		if workers == 0 {
			return
		}
		done := make(chan struct{})
		chans := make([]chan pqMsg, workers)
		var wg sync.WaitGroup
		defer func() {
			close(done)
			wg.Wait()
		}()
		for w := range workers {
			chans[w] = make(chan pqMsg, 2)
			wg.Add(1)
			go func() {
				defer wg.Done()
				send := func(m pqMsg) bool {
					select {
					case chans[w] <- m:
						return true
					case <-done:
						return false
					}
				}
				// parquet-go panics on some corrupt files.
				defer func() {
					if r := recover(); r != nil {
						send(pqMsg{err: fmt.Errorf("%s: a corrupt parquet file: %v", name, oneLine(r))})
					}
				}()
				ps, _ := newPQSchema(pf.Schema())
				for g := w; g < len(groups); g += workers {
					if !decodeRowGroup(ctx, name, ps, groups[g], offsets[g], batches[g], send) {
						return
					}
				}
			}()
		}
		for g := range groups {
			for m := range chans[g%workers] {
				if m.err != nil {
					yield(nil, m.err)
					return
				}
				if m.end {
					break
				}
				for _, r := range m.rows {
					if !yield(r, nil) {
						return
					}
				}
			}
		}
	}
}

// openParquet opens a parquet file, turning parquet-go's panic on some
// corrupt files into an error.
func openParquet(f *os.File, size int64) (pf *parquet.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			pf, err = nil, fmt.Errorf("%v", oneLine(r))
		}
	}()
	pf, err = parquet.OpenFile(f, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err == nil {
		// Building the schema's decoder walks it: a corrupt one panics
		// here rather than in a worker.
		_, err = newPQSchema(pf.Schema())
		if err != nil {
			err = fmt.Errorf("the schema: %w", err)
		}
	}
	return pf, err
}

// parquetMagic checks that the file starts and ends with parquet's magic
// "PAR1", saying what is wrong otherwise: a truncated parquet file (a
// download or copy cut short) or no parquet file at all.
func parquetMagic(f io.ReaderAt, size int64) error {
	var head, tail [4]byte
	if size >= 8 {
		if _, err := f.ReadAt(head[:], 0); err != nil {
			return err
		}
		if _, err := f.ReadAt(tail[:], size-4); err != nil {
			return err
		}
	}
	switch {
	case string(head[:]) == "PAR1" && string(tail[:]) == "PAR1":
		return nil
	case string(head[:]) == "PAR1":
		return errors.New("truncated (it starts with the magic PAR1 but does not end with it): expected a whole parquet file, copy or download it again")
	}
	return errors.New("no magic PAR1 at its start: expected a parquet file, as its extension says")
}

// oneLine is a recovered panic's value as one line.
func oneLine(r any) string { return strings.Join(strings.Fields(fmt.Sprint(r)), " ") }

// decodeRowGroup sends the decoded rows of one row group in batches, then
// its end; it returns false after an error or when send refuses.
func decodeRowGroup(ctx context.Context, name string, ps *pqSchema, rg parquet.RowGroup, offset int64, batch int, send func(pqMsg) bool) bool {
	rows := rg.Rows()
	defer rows.Close()
	cs := make([][]parquet.Value, ps.ncols)
	var slab pqSlab
	buf := make([]parquet.Row, batch)
	row := offset
	for {
		if err := ctx.Err(); err != nil {
			send(pqMsg{err: err})
			return false
		}
		n, err := rows.ReadRows(buf)
		out := make([]hfRow, 0, n)
		for i := range n {
			r, derr := ps.decodeRow(&slab, buf[i], cs)
			if derr != nil {
				send(pqMsg{err: fmt.Errorf("%s: row %d: %v", name, row, derr)})
				return false
			}
			row++
			out = append(out, r)
		}
		if len(out) > 0 && !send(pqMsg{rows: out}) {
			return false
		}
		if errors.Is(err, io.EOF) || err == nil && n == 0 {
			return send(pqMsg{end: true})
		}
		if err != nil {
			send(pqMsg{err: fmt.Errorf("%s: row %d: reading the parquet file: %v", name, row, err)})
			return false
		}
	}
}

// pqSlabSize is the size of the blocks byte array values are copied to.
const pqSlabSize = 64 << 10

// pqSlab copies the strings of byte array values into shared blocks, one
// allocation for many strings (the page buffers the values point to are
// reused, so each must be copied). A block is written only past the
// strings made of it, which stay immutable.
type pqSlab struct{ buf []byte }

func (s *pqSlab) string(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > pqSlabSize/4 {
		return string(b)
	}
	if cap(s.buf)-len(s.buf) < len(b) {
		s.buf = make([]byte, 0, pqSlabSize)
	}
	start := len(s.buf)
	s.buf = append(s.buf, b...)
	return unsafe.String(&s.buf[start], len(b))
}
