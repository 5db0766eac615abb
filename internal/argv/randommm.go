package argv

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/py"
)

// setMMLimits parses --random-mm-limit-mm-per-prompt: a JSON object of
// per-modality caps (vLLM: type=json.loads), in order.
func setMMLimits(n *namespace, v []string) error {
	j, err := parseJSON(v[0])
	obj, ok := j.(*py.Object)
	if err != nil || !ok {
		return fmt.Errorf(`invalid value %s (want a JSON object of caps, e.g. '{"image": 3, "video": 1}')`, py.ReprString(v[0]))
	}
	var out dataset.MMLimits
	for k, val := range obj.All() {
		text, ok := intText(val)
		c, err := strconv.Atoi(text)
		if !ok || err != nil || c < 0 {
			return fmt.Errorf("invalid value %s: the cap of %s must be an integer >= 0", py.ReprString(v[0]), py.ReprString(k))
		}
		out = append(out, dataset.MMLimit{Modality: k, Max: c})
	}
	n.mmLimits = out
	return nil
}

// setMMItemsRatio parses --random-mm-num-mm-items-range-ratio: a float in
// [0, 1].
func setMMItemsRatio(n *namespace, v []string) error {
	f, err := pyFloat(v[0])
	if err != nil {
		return err
	}
	if !(f >= 0 && f <= 1) {
		return fmt.Errorf("invalid value %s (want a ratio in [0, 1])", py.ReprString(v[0]))
	}
	n.mmItemsRatio = f
	return nil
}

// setMMBuckets parses --random-mm-bucket-config as vLLM does: a Python
// literal dict (ast.literal_eval) whose keys are (height, width, frames)
// tuples, or strings of such tuples, and whose values are numbers.
func setMMBuckets(n *namespace, v []string) error {
	bs, err := parseBucketLiteral(v[0])
	if err != nil {
		return fmt.Errorf("invalid value %s: %v (want e.g. '{(256, 256, 1): 0.5, (720, 1280, 16): 0.5}')", py.ReprString(v[0]), err)
	}
	n.mmBuckets = bs
	return nil
}

// parseBucketLiteral reads a Python dict literal of (h, w, t) keys.
func parseBucketLiteral(s string) (dataset.MMBuckets, error) {
	p := &litParser{s: s}
	if !p.eat('{') {
		return nil, fmt.Errorf("not a dict")
	}
	var out dataset.MMBuckets
	for !p.eat('}') {
		if len(out) > 0 && !p.eat(',') {
			return nil, fmt.Errorf("expected ',' or '}' at offset %d", p.i)
		}
		if p.eat('}') { // a trailing comma
			break
		}
		var key [3]int
		var err error
		if p.peek() == '\'' || p.peek() == '"' {
			str, err := p.str()
			if err != nil {
				return nil, err
			}
			key, err = (&litParser{s: str}).tuple()
			if err != nil {
				return nil, fmt.Errorf("invalid bucket key %s: expected a tuple (H, W, T)", py.ReprString(str))
			}
		} else if key, err = p.tuple(); err != nil {
			return nil, err
		}
		if !p.eat(':') {
			return nil, fmt.Errorf("expected ':' at offset %d", p.i)
		}
		f, err := p.number()
		if err != nil {
			return nil, err
		}
		out = append(out, dataset.MMBucket{Height: key[0], Width: key[1], Frames: key[2], Prob: f})
	}
	if p.ws(); p.i != len(p.s) {
		return nil, fmt.Errorf("unexpected text at offset %d", p.i)
	}
	// A repeated key keeps its first place and its last value (a dict).
	var merged dataset.MMBuckets
	for _, b := range out {
		i := -1
		for k, m := range merged {
			if m.Height == b.Height && m.Width == b.Width && m.Frames == b.Frames {
				i = k
			}
		}
		if i >= 0 {
			merged[i].Prob = b.Prob
		} else {
			merged = append(merged, b)
		}
	}
	return merged, nil
}

// litParser reads the Python literals a bucket config holds.
type litParser struct {
	s string
	i int
}

func (p *litParser) ws() {
	for p.i < len(p.s) && strings.ContainsRune(" \t\n\r", rune(p.s[p.i])) {
		p.i++
	}
}

func (p *litParser) peek() byte {
	p.ws()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *litParser) eat(c byte) bool {
	if p.peek() == c {
		p.i++
		return true
	}
	return false
}

// tuple reads (a, b, c) of integers.
func (p *litParser) tuple() ([3]int, error) {
	var t [3]int
	if !p.eat('(') {
		return t, fmt.Errorf("expected a tuple (H, W, T) at offset %d", p.i)
	}
	for k := range t {
		if k > 0 && !p.eat(',') {
			return t, fmt.Errorf("expected a tuple of three integers (H, W, T) at offset %d", p.i)
		}
		p.ws()
		j := p.i
		for p.i < len(p.s) && (p.s[p.i] >= '0' && p.s[p.i] <= '9' || p.i == j && (p.s[p.i] == '-' || p.s[p.i] == '+')) {
			p.i++
		}
		v, err := strconv.Atoi(p.s[j:p.i])
		if err != nil {
			return t, fmt.Errorf("expected an integer at offset %d", j)
		}
		t[k] = v
	}
	p.eat(',')
	if !p.eat(')') {
		return t, fmt.Errorf("expected ')' at offset %d: a key is a tuple of three integers", p.i)
	}
	return t, nil
}

// number reads an int or float literal.
func (p *litParser) number() (float64, error) {
	p.ws()
	j := p.i
	for p.i < len(p.s) && strings.ContainsRune("0123456789+-.eE_", rune(p.s[p.i])) {
		p.i++
	}
	f, err := pyFloat(p.s[j:p.i])
	if err != nil {
		return 0, fmt.Errorf("expected a number at offset %d", j)
	}
	return f, nil
}

// str reads a quoted string (no escapes needed for a tuple).
func (p *litParser) str() (string, error) {
	q := p.s[p.i]
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", fmt.Errorf("unterminated string at offset %d", p.i)
	}
	v := p.s[p.i+1 : p.i+1+end]
	p.i += end + 2
	return v, nil
}

// formatBuckets writes buckets as the Python literal vLLM's flag takes.
func formatBuckets(bs dataset.MMBuckets) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, bk := range bs {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(%d, %d, %d): %s", bk.Height, bk.Width, bk.Frames, py.Repr(bk.Prob))
	}
	b.WriteByte('}')
	return b.String()
}

// formatLimits writes caps as the JSON object vLLM's flag takes.
func formatLimits(ls dataset.MMLimits) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = fmt.Sprintf("%s: %d", string(py.AppendString(nil, l.Modality)), l.Max)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
