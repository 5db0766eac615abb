// Package promscrape reads a server's Prometheus /metrics: one scrape is a
// typed Snapshot (counters, gauges and histograms by family name and label
// set), and the difference of two snapshots gives counter deltas. vLLM's
// speculative- and diffusion-decoding statistics are computed from those
// deltas as `vllm bench serve` computes them (SpecDecode, Diffusion).
//
// Parsing is a tolerant line reader of the text format (see Parse). A
// counter is a family declared as a counter, or an undeclared family whose
// name ends in "_total": Python's prometheus_client declares a counter
// under its base name ("# TYPE vllm:spec_decode_num_drafts counter") and
// writes its samples as "vllm:spec_decode_num_drafts_total", which the text
// format (and expfmt) keeps as an untyped family of that name. Either way
// the counter's family name here is the sample name, with "_total". The
// "_created" series prometheus_client writes next to every counter and
// histogram are timestamps, never counts: they are dropped.
package promscrape

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Kind is the type of a metric family.
type Kind int

// The kinds of family a Snapshot keeps.
const (
	// Counter is a monotonic count; its deltas are computed by Diff.
	Counter Kind = iota + 1
	// Gauge is a value that goes up and down (also untyped samples whose
	// name does not end in "_total").
	Gauge
	// Histogram is a cumulative bucketed distribution.
	Histogram
)

// String names k as the exposition's TYPE line does.
func (k Kind) String() string {
	switch k {
	case Counter:
		return "counter"
	case Gauge:
		return "gauge"
	case Histogram:
		return "histogram"
	}
	return "unknown"
}

// Bucket is one cumulative histogram bucket.
type Bucket struct {
	// UpperBound is the bucket's "le" (+Inf for the last).
	UpperBound float64
	// Count is the number of observations ≤ UpperBound.
	Count uint64
}

// HistogramValue is one histogram series.
type HistogramValue struct {
	// Count and Sum are the series' _count and _sum.
	Count uint64
	Sum   float64
	// Buckets are the cumulative buckets, by increasing upper bound.
	Buckets []Bucket
}

// Series is one label set of a family.
type Series struct {
	// Labels are the series' labels (without "le" for a histogram).
	Labels map[string]string
	// Value is a counter's or gauge's value.
	Value float64
	// Histogram is a histogram's value (nil for other kinds).
	Histogram *HistogramValue
}

// Family is one metric family of a scrape.
type Family struct {
	// Name is the family name; a counter's ends in "_total" (see the
	// package comment).
	Name string
	// Kind is the family's type.
	Kind Kind
	// Series are the family's label sets, by their key (LabelKey).
	Series map[string]*Series
}

// Snapshot is one scrape: the families by name.
type Snapshot struct {
	// Families are the scrape's counter, gauge and histogram families.
	Families map[string]*Family
	// Skipped says which lines Parse could not read and why ("line 12:
	// no value: ..."), in order; the rest of the exposition was read.
	Skipped []string
}

// MaxBody bounds the size of an exposition Parse reads (64 MiB).
const MaxBody = 64 << 20

// ErrTooLarge is returned by Parse for an exposition over MaxBody bytes.
var ErrTooLarge = errors.New("the exposition is larger than 64 MiB")

// LabelKey is the canonical key of a label set: name="value" pairs sorted
// by name, joined by commas, values quoted as Go strings (so any label
// order gives the same key).
func LabelKey(labels map[string]string) string {
	names := make([]string, 0, len(labels))
	for n := range labels {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=%q", n, labels[n])
	}
	return b.String()
}

// Family returns the family name of kind k, or nil.
func (s *Snapshot) Family(name string, k Kind) *Family {
	if s == nil {
		return nil
	}
	if f := s.Families[name]; f != nil && f.Kind == k {
		return f
	}
	return nil
}

// Delta is the change of one counter series between two snapshots.
type Delta struct {
	// Labels are the series' labels.
	Labels map[string]string
	// Before and After are the series' values in the two snapshots (0 when
	// missing there); InBefore and InAfter say whether it was present.
	Before, After     float64
	InBefore, InAfter bool
}

// Reset reports a counter that went down: the server restarted it.
func (d Delta) Reset() bool { return d.InBefore && d.InAfter && d.After < d.Before }

// Value is the series' increase: After − Before; After when the counter
// reset (it counts again from 0) or is new; 0 when the series is gone
// after (it is taken as unchanged).
func (d Delta) Value() float64 {
	switch {
	case !d.InAfter:
		return 0
	case !d.InBefore || d.Reset():
		return d.After
	}
	return d.After - d.Before
}

// Deltas are the counter changes between two snapshots, by family name.
type Deltas map[string][]Delta

// Diff returns the changes of every counter series in before or after.
// Each family's deltas are ordered by label key.
func Diff(before, after *Snapshot) Deltas {
	byKey := map[string]map[string]*Delta{}
	add := func(s *Snapshot, isAfter bool) {
		if s == nil {
			return
		}
		for name, f := range s.Families {
			if f.Kind != Counter {
				continue
			}
			m := byKey[name]
			if m == nil {
				m = map[string]*Delta{}
				byKey[name] = m
			}
			for key, ser := range f.Series {
				x := m[key]
				if x == nil {
					x = &Delta{Labels: ser.Labels}
					m[key] = x
				}
				if isAfter {
					x.After, x.InAfter = ser.Value, true
				} else {
					x.Before, x.InBefore = ser.Value, true
				}
			}
		}
	}
	add(before, false)
	add(after, true)
	d := make(Deltas, len(byKey))
	for name, m := range byKey {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		ds := make([]Delta, len(keys))
		for i, k := range keys {
			ds[i] = *m[k]
		}
		d[name] = ds
	}
	return d
}

// Sum is the total increase of a counter family over its label sets, and
// whether the family was in either snapshot.
func (d Deltas) Sum(name string) (float64, bool) {
	ds, ok := d[name]
	var sum float64
	for _, x := range ds {
		sum += x.Value()
	}
	return sum, ok
}

// finite reports a value that is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
