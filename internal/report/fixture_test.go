package report

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/metrics"
)

// update rewrites the goldens that this package's own code produced
// (testdata/*.golden*). The vLLM example files are never rewritten.
var update = flag.Bool("update", false, "rewrite the golden files written by vbench's code")

// checkGolden compares got with testdata/name, rewriting it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs at byte %d\ngot:\n%s\nwant:\n%s", name, firstDiff(got, want), got, want)
	}
}

// loadVLLM decodes one of vLLM's example result files.
func loadVLLM(t *testing.T, name string) (*Object, []byte) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	v, err := DecodePython(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return v.(*Object), raw
}

func get[T any](t *testing.T, o *Object, key string) T {
	t.Helper()
	v, ok := o.Get(key)
	if !ok {
		t.Fatalf("missing key %q", key)
	}
	x, ok := v.(T)
	if !ok {
		t.Fatalf("key %q: %T is not %T", key, v, x)
	}
	return x
}

func ints(t *testing.T, o *Object, key string) []int {
	var out []int
	for _, v := range get[[]any](t, o, key) {
		out = append(out, int(v.(int64)))
	}
	return out
}

func floats(t *testing.T, v []any) []float64 {
	out := []float64{}
	for _, x := range v {
		f, ok := x.(float64)
		if !ok {
			t.Fatalf("%T is not a float", x)
		}
		out = append(out, f)
	}
	return out
}

func strs(t *testing.T, o *Object, key string) []string {
	var out []string
	for _, v := range get[[]any](t, o, key) {
		out = append(out, v.(string))
	}
	return out
}

// summaryFromVLLM rebuilds the metrics.Summary whose values vLLM wrote into
// a result file: the scalars, the per-metric statistics in file order, and
// the per-request arrays when the file has them.
func summaryFromVLLM(t *testing.T, o *Object) *metrics.Summary {
	t.Helper()
	s := &metrics.Summary{
		Duration:              get[float64](t, o, "duration"),
		Completed:             int(get[int64](t, o, "completed")),
		Failed:                int(get[int64](t, o, "failed")),
		TotalInput:            int(get[int64](t, o, "total_input_tokens")),
		TotalOutput:           int(get[int64](t, o, "total_output_tokens")),
		RequestThroughput:     get[float64](t, o, "request_throughput"),
		OutputThroughput:      get[float64](t, o, "output_throughput"),
		TotalTokenThroughput:  get[float64](t, o, "total_token_throughput"),
		HasTokenizer:          true,
		MaxOutputTokensPerS:   get[float64](t, o, "max_output_tokens_per_s"),
		MaxConcurrentRequests: int(get[int64](t, o, "max_concurrent_requests")),
		RTFx:                  get[float64](t, o, "rtfx"),
	}
	if g, _ := o.Get("request_goodput"); g != nil {
		f := g.(float64)
		s.RequestGoodput = &f
	}
	for _, name := range metrics.MetricOrder {
		if _, ok := o.Get("mean_" + name + "_ms"); !ok {
			continue
		}
		m := metrics.MetricStats{
			Name:   name,
			Mean:   get[float64](t, o, "mean_"+name+"_ms"),
			Median: get[float64](t, o, "median_"+name+"_ms"),
			Std:    get[float64](t, o, "std_"+name+"_ms"),
		}
		suffix := "_" + name + "_ms"
		for _, k := range o.Keys() {
			word, ok := strings.CutSuffix(k, suffix)
			if !ok || !strings.HasPrefix(word, "p") || strings.Contains(word, "_") {
				continue
			}
			p, err := strconv.ParseFloat(word[1:], 64)
			if err != nil {
				continue
			}
			m.Percentiles = append(m.Percentiles, metrics.PercentileValue{P: p, Value: get[float64](t, o, k)})
		}
		s.Metrics = append(s.Metrics, m)
	}
	if _, ok := o.Get("input_lens"); ok {
		s.InputLens = ints(t, o, "input_lens")
		s.OutputLens = ints(t, o, "output_lens")
		s.TTFTs = floats(t, get[[]any](t, o, "ttfts"))
		for _, v := range get[[]any](t, o, "itls") {
			s.ITLs = append(s.ITLs, floats(t, v.([]any)))
		}
		s.StartTimes = floats(t, get[[]any](t, o, "start_times"))
		s.GeneratedTexts = strs(t, o, "generated_texts")
		s.Errors = strs(t, o, "errors")
	}
	return s
}

// headerFromVLLM returns the ResultInput header fields of a vLLM file.
func headerFromVLLM(t *testing.T, o *Object) ResultInput {
	t.Helper()
	in := ResultInput{
		Date:        get[string](t, o, "date"),
		Backend:     get[string](t, o, "backend"),
		ModelID:     get[string](t, o, "model_id"),
		NumPrompts:  int(get[int64](t, o, "num_prompts")),
		Burstiness:  get[float64](t, o, "burstiness"),
		RequestRate: math.Inf(1),
	}
	if l, _ := o.Get("label"); l != nil {
		in.Label = l.(string)
	}
	if tok, _ := o.Get("tokenizer_id"); tok != nil {
		in.TokenizerID = tok.(string)
	}
	if r, _ := o.Get("request_rate"); r != "inf" {
		in.RequestRate = r.(float64)
	}
	if mc, _ := o.Get("max_concurrency"); mc != nil {
		n := int(mc.(int64))
		in.MaxConcurrency = &n
	}
	return in
}
