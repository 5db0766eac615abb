package promscrape

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// parseExpfmt is the reference for Parse on expositions expfmt accepts:
// expfmt's text parser, its families classified as Parse does, the same
// series written twice summed.
func parseExpfmt(r io.Reader) (*Snapshot, error) {
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{Families: map[string]*Family{}}
	for name, mf := range fams {
		kind, ok := refKind(name, mf.GetType())
		if !ok {
			continue
		}
		f := &Family{Name: name, Kind: kind, Series: map[string]*Series{}}
		for _, m := range mf.GetMetric() {
			ser := &Series{Labels: map[string]string{}}
			for _, l := range m.GetLabel() {
				ser.Labels[l.GetName()] = l.GetValue()
			}
			switch {
			case kind == Histogram:
				h := m.GetHistogram()
				hv := &HistogramValue{Count: h.GetSampleCount(), Sum: h.GetSampleSum()}
				for _, b := range h.GetBucket() {
					hv.Buckets = append(hv.Buckets, Bucket{UpperBound: b.GetUpperBound(), Count: b.GetCumulativeCount()})
				}
				ser.Histogram = hv
			case m.GetCounter() != nil:
				ser.Value = m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				ser.Value = m.GetGauge().GetValue()
			default:
				ser.Value = m.GetUntyped().GetValue()
			}
			key := LabelKey(ser.Labels)
			if old := f.Series[key]; old != nil && kind != Histogram {
				old.Value += ser.Value
				continue
			}
			f.Series[key] = ser
		}
		if len(f.Series) > 0 {
			s.Families[name] = f
		}
	}
	return s, nil
}

// refKind classifies an expfmt family as Parse does.
func refKind(name string, t dto.MetricType) (Kind, bool) {
	if strings.HasSuffix(name, "_created") {
		return 0, false
	}
	switch t {
	case dto.MetricType_COUNTER:
		return Counter, true
	case dto.MetricType_GAUGE:
		return Gauge, true
	case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
		return Histogram, true
	case dto.MetricType_UNTYPED:
		if strings.HasSuffix(name, "_total") {
			return Counter, true
		}
		return Gauge, true
	}
	return 0, false
}

// sameFloat compares two sample values, NaN equal to NaN.
func sameFloat(a, b float64) bool {
	return a == b || math.IsNaN(a) && math.IsNaN(b)
}

// diffSnapshots says how two snapshots differ in their counters, gauges and
// histogram sums and bounds, or "".
func diffSnapshots(got, want *Snapshot) string {
	for name, wf := range want.Families {
		// A sample named as a declared histogram itself (no _bucket, _sum
		// or _count) is an empty histogram to expfmt; Parse drops it.
		for key, ws := range wf.Series {
			if h := ws.Histogram; h != nil && len(h.Buckets) == 0 && h.Count == 0 && h.Sum == 0 {
				delete(wf.Series, key)
			}
		}
		if len(wf.Series) == 0 {
			continue
		}
		gf := got.Families[name]
		if gf == nil || gf.Kind != wf.Kind {
			return fmt.Sprintf("family %s: got %+v, want kind %s", name, gf, wf.Kind)
		}
		for key, ws := range wf.Series {
			gs := gf.Series[key]
			if gs == nil {
				return fmt.Sprintf("%s{%s} missing", name, key)
			}
			if wf.Kind != Histogram {
				if !sameFloat(gs.Value, ws.Value) {
					return fmt.Sprintf("%s{%s} = %v, want %v", name, key, gs.Value, ws.Value)
				}
				continue
			}
			if !sameFloat(gs.Histogram.Sum, ws.Histogram.Sum) {
				return fmt.Sprintf("%s{%s} sum = %v, want %v", name, key, gs.Histogram.Sum, ws.Histogram.Sum)
			}
			var gb, wb []float64
			for _, b := range gs.Histogram.Buckets {
				gb = append(gb, b.UpperBound)
			}
			for _, b := range ws.Histogram.Buckets {
				wb = append(wb, b.UpperBound)
			}
			slices.Sort(wb)
			if !slices.Equal(gb, wb) {
				return fmt.Sprintf("%s{%s} bounds %v, want %v", name, key, gb, wb)
			}
		}
		if len(gf.Series) != len(wf.Series) {
			return fmt.Sprintf("family %s: %d series, want %d", name, len(gf.Series), len(wf.Series))
		}
	}
	for name, gf := range got.Families {
		if want.Families[name] == nil && len(gf.Series) > 0 {
			return fmt.Sprintf("extra family %s", name)
		}
	}
	return ""
}

// FuzzParse checks Parse against expfmt on every exposition expfmt
// accepts: the same families, series and values, and nothing skipped.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"# TYPE a counter\na_total{x=\"1\"} 3\n",
		"# TYPE h histogram\nh_bucket{le=\"0.1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum 0.3\nh_count 2\n",
		"g{a=\"sp ace\",b=\"q\\\"uote\"} 1.5 1700000000000\n",
		"# TYPE s summary\ns{quantile=\"0.5\"} 1\ns_sum 2\ns_count 3\nu 7\n",
		"x_total{a=\"1\",b=\"2\"} 1\nx_total{b=\"2\",a=\"1\"} 2\n",
		"n NaN\ni +Inf\nj -Inf\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, line := range strings.Split(text, "\n") {
			line = strings.TrimSpace(line)
			head, _, _ := strings.Cut(line, "{")
			if !strings.HasPrefix(line, "#") && (head == "" || strings.Contains(head, `"`)) {
				return // expfmt's quoted-name syntax, which vLLM's servers do not write
			}
		}
		want, err := parseExpfmt(strings.NewReader(text))
		if err != nil {
			return
		}
		got, err := Parse(strings.NewReader(text))
		if err != nil {
			if len(want.Families) == 0 {
				return // nothing to read either way
			}
			t.Fatalf("Parse: %v; expfmt read %d families", err, len(want.Families))
		}
		if d := diffSnapshots(got, want); d != "" {
			t.Errorf("%q: %s", text, d)
		}
	})
}
