package argv

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/py"
)

// The setters below parse a flag's values with vLLM's type and store them.
// Their errors are messages without the flag name; the parser adds it.

func setInt(field func(*namespace) *int64) func(*namespace, []string) error {
	return func(n *namespace, v []string) error {
		i, err := pyInt(v[0])
		if err != nil {
			return err
		}
		*field(n) = i
		return nil
	}
}

func setIntPtr(field func(*namespace) **int64) func(*namespace, []string) error {
	return func(n *namespace, v []string) error {
		i, err := pyInt(v[0])
		if err != nil {
			return err
		}
		*field(n) = &i
		return nil
	}
}

func setFloat(field func(*namespace) *float64) func(*namespace, []string) error {
	return func(n *namespace, v []string) error {
		f, err := pyFloat(v[0])
		if err != nil {
			return err
		}
		if math.IsNaN(f) {
			return fmt.Errorf("invalid value %s: nan is not a number vbench can use", py.ReprString(v[0]))
		}
		*field(n) = f
		return nil
	}
}

// setFloatPtr parses a sampling parameter: it is sent in the JSON payload,
// which cannot hold nan or inf.
func setFloatPtr(field func(*namespace) **float64) func(*namespace, []string) error {
	return func(n *namespace, v []string) error {
		f, err := pyFloat(v[0])
		if err != nil {
			return err
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("invalid value %s: want a finite number (a request payload cannot hold nan or inf)", py.ReprString(v[0]))
		}
		*field(n) = &f
		return nil
	}
}

// setRequestIDPrefix stores --request-id-prefix. An empty prefix cannot be
// told apart from "not set" in the scenario, where it means vLLM's random
// bench-<8 hex>- prefix.
func setRequestIDPrefix(n *namespace, v []string) error {
	if v[0] == "" {
		return errors.New("an empty prefix is not supported yet (the scenario's empty request_id_prefix means vLLM's random bench-<8 hex>- prefix)")
	}
	n.requestIDPrefix = &v[0]
	return nil
}

// splitPair splits vLLM's KEY=VALUE at the first "=" and strips both sides.
func splitPair(item, what string) (string, string, error) {
	k, v, ok := strings.Cut(item, "=")
	if !ok {
		return "", "", fmt.Errorf("invalid %s %s (want KEY=VALUE)", what, py.ReprString(item))
	}
	return strings.Trim(k, pySpace), strings.Trim(v, pySpace), nil
}

// splitHeader is splitPair for --header. Its error names only the key part
// of a malformed item (the text before the first ":" or space), since the
// rest may be a secret such as "Authorization: Bearer sk-...".
func splitHeader(item string) (string, string, error) {
	k, v, ok := strings.Cut(item, "=")
	if !ok {
		key := strings.Trim(item, pySpace)
		if i := strings.IndexAny(key, ": \t"); i >= 0 {
			key = key[:i]
		}
		return "", "", fmt.Errorf("invalid header %s (want KEY=VALUE; the rest of the value is <redacted>)", py.ReprString(key))
	}
	return strings.Trim(k, pySpace), strings.Trim(v, pySpace), nil
}

// setHeaders stores --header KEY=VALUE...; no values means no headers.
func setHeaders(n *namespace, v []string) error {
	n.headers = nil
	for _, item := range v {
		k, val, err := splitHeader(item)
		if err != nil {
			return err
		}
		if n.headers == nil {
			n.headers = map[string]string{}
		}
		n.headers[k] = val
	}
	return nil
}

// setMetadata stores --metadata KEY=VALUE... in order; a repeated key
// keeps its first position and takes the last value, as the result dict
// does.
func setMetadata(n *namespace, v []string) error {
	n.metadata = nil
	for _, item := range v {
		k, val, err := splitPair(item, "metadata item")
		if err != nil {
			return err
		}
		n.metadata.Set(k, val)
	}
	return nil
}

// setGoodput stores --goodput KEY:VALUE... as vLLM's parse_goodput and
// check_goodput_args do: exactly one ":", a known key, a non-negative
// number of milliseconds.
func setGoodput(n *namespace, v []string) error {
	g := map[string]float64{}
	for _, item := range v {
		parts := strings.Split(item, ":")
		if len(parts) != 2 {
			return fmt.Errorf("invalid service level objective %s (want KEY:VALUE, e.g. ttft:200, with the value in milliseconds)", py.ReprString(item))
		}
		f, err := pyFloat(parts[1])
		if err != nil {
			return fmt.Errorf("invalid service level objective %s (want KEY:VALUE, e.g. ttft:200, with the value in milliseconds)", py.ReprString(item))
		}
		switch {
		case !slices.Contains([]string{"ttft", "tpot", "e2el"}, parts[0]):
			return fmt.Errorf("invalid metric name %s (want ttft, tpot or e2el)", py.ReprString(parts[0]))
		case f < 0:
			return fmt.Errorf("invalid value %s for %s (want a number of milliseconds >= 0)", formatFloat(f), parts[0])
		case math.IsNaN(f) || math.IsInf(f, 0):
			return fmt.Errorf("invalid value %s for %s (want a finite number of milliseconds)", formatFloat(f), parts[0])
		}
		g[parts[0]] = f
	}
	n.goodput = g
	return nil
}

// setExtraBody parses --extra-body as JSON; it must be an object (or null,
// which sends nothing).
func setExtraBody(n *namespace, v []string) error {
	j, err := parseJSON(v[0])
	if err != nil {
		return fmt.Errorf("invalid JSON value %s: %v", py.ReprString(v[0]), err)
	}
	switch j := j.(type) {
	case nil:
		n.extraBody = nil
	case *py.Object:
		n.extraBody = plainJSON(j).(map[string]any)
		if len(n.extraBody) == 0 {
			n.extraBody = nil
		}
	default:
		return fmt.Errorf("invalid value %s (want a JSON object, e.g. '{\"temperature\": 0}')", py.ReprString(v[0]))
	}
	return nil
}

// setRangeRatio parses --random-range-ratio as vLLM does: a float for both
// lengths, else JSON {"input": r, "output": r}; each ratio in [0, 1).
func setRangeRatio(n *namespace, v []string) error {
	const want = `want a ratio in [0, 1), or '{"input": r, "output": r}'`
	if f, err := pyFloat(v[0]); err == nil {
		if !(f >= 0 && f < 1) {
			return fmt.Errorf("invalid value %s (%s)", py.ReprString(v[0]), want)
		}
		n.rangeRatio = dataset.RangeRatio{Input: f, Output: f}
		return nil
	}
	j, err := parseJSON(v[0])
	obj, isObj := j.(*py.Object)
	if err != nil || !isObj || obj.Len() != 2 {
		return fmt.Errorf("invalid value %s (%s)", py.ReprString(v[0]), want)
	}
	var r [2]float64
	for i, key := range []string{"input", "output"} {
		x, _ := obj.Get(key)
		f, isFloat := x.(float64)
		if text, isInt := intText(x); isInt {
			f, _ = pyFloat(text)
		} else if !isFloat {
			return fmt.Errorf("invalid value %s (%s)", py.ReprString(v[0]), want)
		}
		if !(f >= 0 && f < 1) {
			return fmt.Errorf("invalid %s ratio %s (%s)", key, formatFloat(f), want)
		}
		r[i] = f
	}
	n.rangeRatio = dataset.RangeRatio{Input: r[0], Output: r[1]}
	return nil
}

// setRandomBatchSize parses --random-batch-size: vLLM takes any int,
// and a batch below 1 makes no requests (random) or fails (random-rerank);
// vbench refuses it at once.
func setRandomBatchSize(n *namespace, v []string) error {
	i, err := pyInt(v[0])
	if err != nil {
		return err
	}
	if i < 1 {
		return fmt.Errorf("must be at least 1, got %d", i)
	}
	n.randomBatchSize = i
	return nil
}

// setPercentileMetrics parses --percentile-metrics. vLLM splits at ","
// without stripping and skips names it does not know; vbench refuses them
// instead, so that a typo does not silently drop a metric. An empty value
// is vLLM's default (args.percentile_metrics or the task's default).
func setPercentileMetrics(n *namespace, v []string) error {
	n.percentileMetricsEmpty = v[0] == ""
	if v[0] == "" {
		n.percentileMetrics = []string{"ttft", "tpot", "itl"} // the default, or e2el for pooling (parse)
		return nil
	}
	names := strings.Split(v[0], ",")
	for _, name := range names {
		if !slices.Contains(percentileMetricNames, name) {
			return fmt.Errorf("unknown metric %s (want a comma-separated list of %s, without spaces; vllm bench serve would silently skip it)",
				py.ReprString(name), strings.Join(percentileMetricNames, ", "))
		}
	}
	n.percentileMetrics = names
	return nil
}

// setMetricPercentiles parses --metric-percentiles: comma-separated floats.
func setMetricPercentiles(n *namespace, v []string) error {
	var ps []float64
	for _, s := range strings.Split(v[0], ",") {
		p, err := pyFloat(s)
		if err != nil || math.IsNaN(p) || math.IsInf(p, 0) {
			return fmt.Errorf("invalid percentile %s (want comma-separated numbers in [0, 100], e.g. 50,90,99)", py.ReprString(s))
		}
		ps = append(ps, p)
	}
	n.metricPercentiles = ps
	return nil
}

// setChatTemplateKwargs parses --chat-template-kwargs as vLLM does
// (json.loads), keeping a JSON object, the only value apply_chat_template
// can take as keyword arguments; null is None.
func setChatTemplateKwargs(n *namespace, v []string) error {
	j, err := parseJSON(v[0])
	if err != nil {
		return fmt.Errorf("invalid JSON value %s: %v", py.ReprString(v[0]), err)
	}
	switch j := j.(type) {
	case nil:
		n.chatTemplateKwargs = nil
	case *py.Object:
		n.chatTemplateKwargs = plainJSON(j).(map[string]any)
	default:
		return fmt.Errorf("invalid value %s (want a JSON object, e.g. '{\"enable_thinking\": false}')", py.ReprString(v[0]))
	}
	return nil
}
