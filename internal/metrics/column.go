package metrics

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/vbench/vbench/internal/numpy"
)

// sortMemValues is how many values of a column are sorted in memory at
// once: a column that fits is read back and sorted whole; a longer one is
// sorted in runs of this many, merged as they are read (tests lower it to
// exercise the merge).
var sortMemValues = 1 << 18

// column is a list of float64 values kept in a blob, in the order they
// were added: a latency metric's values, or the successes' start or end
// times. Its statistics are numpy's over the values in that order.
type column struct {
	dir string
	b   blob
	a   *appender
	n   int
	buf [8]byte
}

func newColumn(dir string) (*column, error) {
	b, err := newBlob(dir)
	if err != nil {
		return nil, err
	}
	return &column{dir: dir, b: b, a: newAppender(b)}, nil
}

func (c *column) add(v float64) {
	binary.LittleEndian.PutUint64(c.buf[:], math.Float64bits(v))
	c.a.write(c.buf[:])
	c.n++
}

func (c *column) close() error { return c.b.Close() }

// floatReader reads float64s from a byte stream.
type floatReader struct {
	r   *bufio.Reader
	raw []byte
}

func (f *floatReader) ReadFloats(buf []float64) error {
	if need := 8 * len(buf); cap(f.raw) < need {
		f.raw = make([]byte, need)
	}
	raw := f.raw[:8*len(buf)]
	if _, err := io.ReadFull(f.r, raw); err != nil {
		return fmt.Errorf("reading the metrics fold's spill file: %w", err)
	}
	for i := range buf {
		buf[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
	}
	return nil
}

// reader reads the values from the first. The column must be flushed.
func (c *column) reader() *floatReader {
	return &floatReader{r: reader(c.b, 0, 8*int64(c.n))}
}

// all returns every value, in order.
func (c *column) all() ([]float64, error) {
	if err := c.a.flush(); err != nil {
		return nil, err
	}
	v := make([]float64, c.n)
	return v, c.reader().ReadFloats(v)
}

// describe is Describe of the column's values: vLLM's statistics of
// `values or 0`, each in milliseconds, exactly as Describe computes them
// from the values in memory.
func (c *column) describe(name string, percentiles []float64) (MetricStats, error) {
	if c.n <= sortMemValues {
		v, err := c.all()
		if err != nil {
			return MetricStats{}, err
		}
		return Describe(name, v, percentiles), nil
	}
	if err := c.a.flush(); err != nil {
		return MetricStats{}, err
	}
	mean, std, err := numpy.MeanStdFrom(func() numpy.FloatReader { return c.reader() }, c.n)
	if err != nil {
		return MetricStats{}, err
	}
	ranks := numpy.MedianRanks(c.n)
	for _, p := range percentiles {
		ranks = append(ranks, numpy.PercentileRanks(c.n, p)...)
	}
	at, err := c.ranked(ranks)
	if err != nil {
		return MetricStats{}, err
	}
	get := func(k int) float64 { return at[k] }
	st := MetricStats{Name: name, Mean: mean * 1000, Median: numpy.MedianOf(c.n, get) * 1000, Std: std * 1000}
	for _, p := range percentiles {
		st.Percentiles = append(st.Percentiles, PercentileValue{P: p, Value: numpy.PercentileOf(c.n, get, p) * 1000})
	}
	return st, nil
}

// ranked returns the values at the given positions of the column sorted
// ascending.
func (c *column) ranked(ranks []int) (map[int]float64, error) {
	want := map[int]bool{}
	for _, r := range ranks {
		want[r] = true
	}
	at := map[int]float64{}
	k := 0
	err := c.sorted(func(v float64) bool {
		if want[k] {
			at[k] = v
			if len(at) == len(want) {
				return false
			}
		}
		k++
		return true
	})
	return at, err
}

// sorted calls yield with the column's values in ascending order (as
// slices.Sort orders them) until it returns false: the values are sorted
// in memory when they fit (sortMemValues), else in runs spilled to a blob
// and merged.
func (c *column) sorted(yield func(float64) bool) error {
	if err := c.a.flush(); err != nil {
		return err
	}
	if c.n <= sortMemValues {
		v, err := c.all()
		if err != nil {
			return err
		}
		slices.Sort(v)
		for _, x := range v {
			if !yield(x) {
				break
			}
		}
		return nil
	}
	runs, err := newBlob(c.dir)
	if err != nil {
		return err
	}
	defer runs.Close()
	out := newAppender(runs)
	in := c.reader()
	chunk := make([]float64, 0, sortMemValues)
	var bounds []int64 // each run's first value's position
	var b [8]byte
	for done := 0; done < c.n; {
		m := min(sortMemValues, c.n-done)
		chunk = chunk[:m]
		if err := in.ReadFloats(chunk); err != nil {
			return err
		}
		slices.Sort(chunk)
		bounds = append(bounds, int64(done))
		for _, v := range chunk {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
			out.write(b[:])
		}
		done += m
	}
	bounds = append(bounds, int64(c.n))
	chunk = nil
	if err := out.flush(); err != nil {
		return err
	}
	h := &mergeHeap{}
	for i := 0; i+1 < len(bounds); i++ {
		r := &floatReader{r: reader(runs, 8*bounds[i], 8*(bounds[i+1]-bounds[i]))}
		m := &mergeRun{r: r, left: int(bounds[i+1] - bounds[i])}
		if err := m.advance(); err != nil {
			return err
		}
		h.runs = append(h.runs, m)
	}
	heap.Init(h)
	for h.Len() > 0 {
		m := h.runs[0]
		if !yield(m.v) {
			return nil
		}
		if m.left == 0 {
			heap.Pop(h)
			continue
		}
		if err := m.advance(); err != nil {
			return err
		}
		heap.Fix(h, 0)
	}
	return nil
}

// mergeRun is one sorted run being merged: v is its next value.
type mergeRun struct {
	r    *floatReader
	v    float64
	left int // values after v
	one  [1]float64
}

func (m *mergeRun) advance() error {
	if err := m.r.ReadFloats(m.one[:]); err != nil {
		return err
	}
	m.v = m.one[0]
	m.left--
	return nil
}

// mergeHeap orders the runs by their next value, as slices.Sort orders
// float64s (NaN first).
type mergeHeap struct{ runs []*mergeRun }

func (h *mergeHeap) Len() int { return len(h.runs) }
func (h *mergeHeap) Less(i, j int) bool {
	a, b := h.runs[i].v, h.runs[j].v
	return a < b || (math.IsNaN(a) && !math.IsNaN(b))
}
func (h *mergeHeap) Swap(i, j int) { h.runs[i], h.runs[j] = h.runs[j], h.runs[i] }
func (h *mergeHeap) Push(x any)    { h.runs = append(h.runs, x.(*mergeRun)) }
func (h *mergeHeap) Pop() any {
	x := h.runs[len(h.runs)-1]
	h.runs = h.runs[:len(h.runs)-1]
	return x
}

// steadyStats is steadyStats of the column's values.
func (c *column) steadyStats(name string, percentiles []float64) (MetricStats, error) {
	if c.n <= sortMemValues {
		v, err := c.all()
		return steadyStats(name, v, percentiles), err
	}
	st, err := c.describe(name, percentiles)
	st.Std = 0
	return st, err
}
