package promscrape

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Parse reads a Prometheus text exposition (format 0.0.4) line by line, as
// vLLM's client reads /metrics, so that one bad line does not lose the
// rest: CRLF line ends are read, two expositions written one after the
// other are read as one (a family declared twice keeps its first TYPE),
// and a line it cannot read (no value, a broken label set, a TYPE that
// contradicts an earlier one) is skipped and named in Snapshot.Skipped.
// What is right by the text format stays: label values may hold spaces and
// escapes, a sample may carry a timestamp, families are told apart by
// their exact names.
//
// The same series (name and label set, in any label order) written more
// than once is summed, as vLLM's reader sums every line of a counter.
// Summaries are left out; "_created" series are dropped. It fails only
// when the body is larger than MaxBody, cannot be read, or has lines of
// which none could be read (it is not an exposition, e.g. an HTML page).
func Parse(r io.Reader) (*Snapshot, error) {
	lr := &io.LimitedReader{R: r, N: MaxBody + 1}
	data, err := io.ReadAll(lr)
	if lr.N <= 0 {
		return nil, ErrTooLarge
	}
	if err != nil {
		return nil, fmt.Errorf("reading the exposition: %w", err)
	}
	p := parser{s: &Snapshot{Families: map[string]*Family{}}, types: map[string]string{}}
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if reason := p.line(bytes.TrimSpace(line)); reason != "" {
			p.s.Skipped = append(p.s.Skipped, fmt.Sprintf("line %d: %s: %.80q", n, reason, bytes.TrimSpace(line)))
		}
	}
	if p.samples == 0 && len(p.s.Skipped) > 0 {
		return nil, fmt.Errorf("parsing the exposition: no line could be read (%s)", p.s.Skipped[0])
	}
	for _, f := range p.s.Families {
		for _, ser := range f.Series {
			if h := ser.Histogram; h != nil {
				slices.SortFunc(h.Buckets, func(a, b Bucket) int {
					switch {
					case a.UpperBound < b.UpperBound:
						return -1
					case a.UpperBound > b.UpperBound:
						return 1
					}
					return 0
				})
			}
		}
	}
	return p.s, nil
}

// parser is the state of one Parse.
type parser struct {
	s       *Snapshot
	types   map[string]string // declared family types by name
	samples int               // sample lines read
}

// line reads one trimmed line and returns why it was skipped, or "".
func (p *parser) line(line []byte) string {
	if len(line) == 0 {
		return ""
	}
	if line[0] == '#' {
		f := strings.Fields(string(line[1:]))
		if len(f) >= 3 && f[0] == "TYPE" {
			name, typ := f[1], strings.ToLower(f[2]) // as expfmt reads it
			switch typ {
			case "counter", "gauge", "histogram", "summary", "untyped", "gaugehistogram":
			default:
				return "unknown metric type " + strconv.Quote(typ)
			}
			if old, ok := p.types[name]; ok && old != typ {
				return fmt.Sprintf("%s declared %s after %s (the first holds)", name, typ, old)
			}
			p.types[name] = typ
		}
		return "" // HELP and comments
	}
	name, labels, value, reason := parseSample(line)
	if reason != "" {
		return reason
	}
	p.samples++
	p.add(name, labels, value)
	return ""
}

// add files one sample under its family.
func (p *parser) add(name string, labels map[string]string, value float64) {
	if strings.HasSuffix(name, "_created") {
		return
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		base, ok := strings.CutSuffix(name, suffix)
		if !ok {
			continue
		}
		switch p.types[base] {
		case "histogram", "gaugehistogram":
			p.histogram(base, suffix, labels, value)
			return
		case "summary":
			return
		}
	}
	var kind Kind
	switch p.types[name] {
	case "histogram", "gaugehistogram":
		if _, ok := labels["le"]; ok { // a bucket under the bare name, as expfmt reads it
			p.histogram(name, "_bucket", labels, value)
		}
		return
	case "summary":
		return
	case "counter":
		kind = Counter
	case "gauge":
		kind = Gauge
	default: // untyped or undeclared
		kind = Gauge
		if strings.HasSuffix(name, "_total") {
			kind = Counter
		}
	}
	f := p.family(name, kind)
	key := LabelKey(labels)
	if ser := f.Series[key]; ser != nil {
		ser.Value += value // the same series twice: summed, as vLLM does
		return
	}
	f.Series[key] = &Series{Labels: labels, Value: value}
}

// histogram files one _bucket, _sum or _count sample of histogram base.
func (p *parser) histogram(base, suffix string, labels map[string]string, value float64) {
	le, hasLE := labels["le"]
	if suffix == "_bucket" {
		if !hasLE {
			return
		}
		delete(labels, "le")
	}
	f := p.family(base, Histogram)
	key := LabelKey(labels)
	ser := f.Series[key]
	if ser == nil {
		ser = &Series{Labels: labels, Histogram: &HistogramValue{}}
		f.Series[key] = ser
	}
	h := ser.Histogram
	switch suffix {
	case "_bucket":
		ub, err := parseValue(le)
		if err != nil {
			return
		}
		for i := range h.Buckets {
			if h.Buckets[i].UpperBound == ub {
				h.Buckets[i].Count += count(value)
				return
			}
		}
		h.Buckets = append(h.Buckets, Bucket{UpperBound: ub, Count: count(value)})
	case "_sum":
		h.Sum += value
	case "_count":
		h.Count += count(value)
	}
}

// count converts a sample to a count as expfmt does (truncated).
func count(v float64) uint64 {
	if !(v >= 0) || math.IsInf(v, 1) {
		return 0
	}
	return uint64(v)
}

// family returns the family name of kind k, making it.
func (p *parser) family(name string, k Kind) *Family {
	f := p.s.Families[name]
	if f == nil {
		f = &Family{Name: name, Kind: k, Series: map[string]*Series{}}
		p.s.Families[name] = f
	}
	return f
}

// errNoValue marks a sample line without a value.
var errNoValue = errors.New("no value")

// parseSample reads `name{labels} value [timestamp]`; reason says why a
// line is not one.
func parseSample(line []byte) (name string, labels map[string]string, value float64, reason string) {
	i := 0
	for i < len(line) && isNameByte(line[i], i == 0) {
		i++
	}
	if i == 0 {
		return "", nil, 0, "not a metric name"
	}
	name = string(line[:i])
	labels = map[string]string{}
	rest := line[i:]
	blank := bytes.TrimLeft(rest, " \t")
	hadLabels := len(blank) > 0 && blank[0] == '{'
	if hadLabels {
		rest = blank
		var n int
		var err error
		if labels, n, err = parseLabels(rest); err != nil {
			return "", nil, 0, "labels: " + err.Error()
		}
		rest = rest[n:]
	}
	if len(bytes.TrimSpace(rest)) == 0 {
		return "", nil, 0, errNoValue.Error()
	}
	f := strings.Fields(string(rest))
	if len(f) == 0 || len(f) > 2 {
		return "", nil, 0, "want a value and at most a timestamp"
	}
	v, err := parseValue(f[0])
	if err != nil {
		return "", nil, 0, "value " + strconv.Quote(f[0]) + " is not a number"
	}
	if len(f) == 2 {
		if _, err := strconv.ParseInt(f[1], 10, 64); err != nil {
			return "", nil, 0, "timestamp " + strconv.Quote(f[1]) + " is not an integer"
		}
	}
	return name, labels, v, ""
}

// parseValue reads a sample value as the text format writes it: a Go float,
// or +Inf, -Inf, NaN.
func parseValue(s string) (float64, error) {
	switch s {
	case "+Inf", "Inf":
		return math.Inf(1), nil
	case "-Inf":
		return math.Inf(-1), nil
	case "NaN":
		return math.NaN(), nil
	}
	if strings.ContainsAny(s, "pPxX_") {
		return 0, errors.New("not a decimal number") // no hex floats or digit separators, as expfmt
	}
	return strconv.ParseFloat(s, 64)
}

// isNameByte reports whether c may be in a metric name (first: at its
// start).
func isNameByte(c byte, first bool) bool {
	return c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && c >= '0' && c <= '9'
}

// parseLabels reads `{name="value",...}` at the start of b and returns the
// labels and the bytes read.
func parseLabels(b []byte) (map[string]string, int, error) {
	labels := map[string]string{}
	i := 1
	for {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		if i < len(b) && b[i] == '}' {
			return labels, i + 1, nil
		}
		start := i
		for i < len(b) && isNameByte(b[i], i == start) && b[i] != ':' {
			i++
		}
		if i == start {
			return nil, 0, errors.New("no label name")
		}
		lname := string(b[start:i])
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		if i+1 >= len(b) || b[i] != '=' || b[i+1] != '"' {
			return nil, 0, fmt.Errorf("label %s: want =\"value\"", lname)
		}
		i += 2
		var v strings.Builder
		for {
			if i >= len(b) {
				return nil, 0, fmt.Errorf("label %s: the value is not closed", lname)
			}
			c := b[i]
			if c == '"' {
				i++
				break
			}
			if c == '\\' && i+1 < len(b) {
				switch b[i+1] {
				case 'n':
					v.WriteByte('\n')
				case '\\', '"':
					v.WriteByte(b[i+1])
				default:
					return nil, 0, fmt.Errorf("label %s: bad escape \\%c", lname, b[i+1])
				}
				i += 2
				continue
			}
			v.WriteByte(c)
			i++
		}
		if _, dup := labels[lname]; dup {
			return nil, 0, fmt.Errorf("label %s given twice", lname)
		}
		labels[lname] = v.String()
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		if i < len(b) && b[i] == ',' {
			i++
			continue
		}
		if i < len(b) && b[i] == '}' {
			return labels, i + 1, nil
		}
		return nil, 0, errors.New("want , or } after a label")
	}
}
