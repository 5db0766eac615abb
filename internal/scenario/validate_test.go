package scenario

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

// TestValidationRules loads one scenario per rule of `vllm bench serve`'s
// main_async validation (upstream vllm/benchmarks/serve.py), and per experiment rule.
func TestValidationRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  string // a CUE file
		want string // the whole error; "" means valid
	}{
		{
			name: "ramp-up needs request_rate inf",
			src:  "load: {request_rate: 10, ramp_up: {strategy: \"linear\", start_rps: 1, end_rps: 5}}\n",
			want: `x.cue:1:26: load.ramp_up: load.ramp_up needs load.request_rate "inf" (the ramp sets the rate), got 10`,
		},
		{
			name: "ramp-up start above end",
			src:  "load: ramp_up: {strategy: \"linear\", start_rps: 9, end_rps: 5}\n",
			want: "x.cue:1:7: load.ramp_up: start_rps 9 exceeds end_rps 5 (want start_rps <= end_rps)",
		},
		{
			name: "exponential ramp-up from zero",
			src:  "load: ramp_up: {strategy: \"exponential\", start_rps: 0, end_rps: 5}\n",
			want: "x.cue:1:42: load.ramp_up.start_rps: an exponential ramp-up cannot start at 0 (want start_rps > 0)",
		},
		{
			name: "linear ramp-up from zero is fine",
			src:  "load: ramp_up: {strategy: \"linear\", start_rps: 0, end_rps: 5}\n",
		},
		{
			name: "ramp-up needs both ends",
			src:  "load: ramp_up: {strategy: \"linear\", start_rps: 1}\n",
			want: "x.cue:1:7: load.ramp_up.end_rps: field is required but not present",
		},
		{
			name: "ramp-up rates are not negative",
			src:  "load: ramp_up: {strategy: \"linear\", start_rps: -1, end_rps: 5}\n",
			want: "x.cue:1:48: load.ramp_up.start_rps: invalid value -1 (out of bound >=0)",
		},
		{
			name: "random takes no path",
			src:  "dataset: random: path: \"x.json\"\n",
			want: "x.cue:1:18: dataset.random.path: field not allowed (allowed: batch_size, cache_hit_fraction, cache_ratio, input_len, output_len, prefix_len, prompt_token_ids, range_ratio)",
		},
		{
			name: "random_mm takes no path",
			src:  "dataset: random_mm: path: \"x.json\"\n",
			want: "x.cue:1:21: dataset.random_mm.path: field not allowed (allowed: base_items_per_request, batch_size, bucket_config, enable_multimodal_chat, input_len, limit_mm_per_prompt, num_mm_items_range_ratio, output_len, prefix_len, range_ratio)",
		},
		{
			name: "random_rerank takes no path",
			src:  "dataset: random_rerank: path: \"x.json\"\n",
			want: "x.cue:1:25: dataset.random_rerank.path: field not allowed (allowed: batch_size, input_len, no_reranker, output_len, prefix_len, range_ratio)",
		},
		{
			name: "prefix_repetition takes no path",
			src:  "dataset: prefix_repetition: path: \"x.json\"\n",
			want: "x.cue:1:29: dataset.prefix_repetition.path: field not allowed (allowed: disable_shuffle, num_prefixes, output_len, prefix_len, suffix_len)",
		},
		{
			name: "timed_trace needs vllm or openai",
			src:  "target: backend: \"openai-chat\"\ndataset: timed_trace: path: \"t.jsonl\"\n",
			want: `x.cue:1:9: target.backend: dataset timed_trace needs backend vllm or openai, got "openai-chat"`,
		},
		{
			name: "timed_trace with vllm",
			src:  "target: backend: \"vllm\"\ndataset: timed_trace: {path: \"t.jsonl\", self_timed: true}\n",
		},
		{
			name: "self_timed only with timed_trace",
			src:  "dataset: sharegpt: {path: \"sg.json\", self_timed: true}\n",
			want: "x.cue:1:38: dataset.sharegpt.self_timed: field not allowed (allowed: disable_shuffle, enable_multimodal_chat, no_oversample, output_len, path)",
		},
		{
			name: "sampling needs an OpenAI-compatible backend",
			src:  "target: backend: \"openai-embeddings\"\nsampling: {top_p: 0.9, temperature: 0}\n",
			want: `x.cue:2:24: sampling.temperature: sampling.temperature, sampling.top_p needs backend vllm, openai or openai-chat, got "openai-embeddings"`,
		},
		{
			name: "sampling with openai-chat",
			src:  "target: backend: \"openai-chat\"\nsampling: {min_p: 0.1, repetition_penalty: 1.1, presence_penalty: 0, frequency_penalty: 0, top_k: 5}\n",
		},
		{
			name: "ignore_eos and extra_body with any backend",
			src:  "target: backend: \"vllm-rerank\"\nsampling: {ignore_eos: true, extra_body: {x: 1}}\n",
		},
		{
			name: "goodput keys",
			src:  "metrics: goodput: {ttft: 100, itl: 5}\n",
			want: "x.cue:1:31: metrics.goodput.itl: field not allowed (allowed: e2el, tpot, ttft)",
		},
		{
			name: "goodput values",
			src:  "metrics: goodput: tpot: -1\n",
			want: "x.cue:1:25: metrics.goodput.tpot: invalid value -1 (out of bound >=0)",
		},
		{
			name: "timeline thresholds exactly two",
			src:  "output: timeline_itl_thresholds: [25, 50, 75]\n",
			want: "x.cue:1:9: output.timeline_itl_thresholds: incompatible list lengths (2 and 3)",
		},
		{
			name: "max_concurrency above zero",
			src:  "load: max_concurrency: 0\n",
			want: "x.cue:1:24: load.max_concurrency: invalid value 0 (out of bound >0)",
		},
		{
			name: "zip axes of equal length",
			src:  "sweep: {mode: \"zip\", axes: {\"load.num_prompts\": [1, 2], seed: [1]}}\n",
			want: "x.cue:1:22: sweep.axes: zip mode needs every axis to have the same number of values",
		},
		{
			name: "sweep cannot vary the schema",
			src:  "sweep: axes: schema: [\"x\"]\n",
			want: "x.cue:1:14: sweep.axes.schema: a sweep cannot vary schema",
		},
		{
			name: "sweep axis is a field path",
			src:  "sweep: axes: \"load..x\": [1]\n",
			want: `x.cue:1:14: sweep.axes."load..x": invalid field path "load..x": illegal token '..'; expected '.'`,
		},
		{
			name: "sweep needs an axis",
			src:  "sweep: axes: {}\n",
			want: "x.cue:1:8: sweep.axes: want at least one axis",
		},
		{
			name: "repeat at least once",
			src:  "repeat: count: 0\n",
			want: "x.cue:1:16: repeat.count: invalid value 0 (out of bound >=1)",
		},
		{
			name: "baseline is a variant",
			src:  "compare: {variants: {a: {}, b: {}}, baseline: \"c\"}\n",
			want: `x.cue:1:37: compare.baseline: "c" is not a variant (want one of a, b)`,
		},
		{
			name: "at least two variants",
			src:  "compare: variants: a: {}\n",
			want: "x.cue:1:10: compare.variants: want at least two variants, got 1",
		},
		{
			name: "gate needs a limit",
			src:  "compare: {variants: {a: {}, b: {}}, gates: [{metric: \"p99_ttft_ms\"}]}\n",
			want: "x.cue:1:45: compare.gates[0]: gate on p99_ttft_ms needs max_increase or max_decrease",
		},
		{
			name: "gate limit is a percentage",
			src:  "compare: {variants: {a: {}, b: {}}, gates: [{metric: \"m\", max_increase: \"5\"}]}\n",
			want: `x.cue:1:73: compare.gates[0].max_increase: invalid value "5" (out of bound =~"^[0-9]+(\\.[0-9]+)?%$")`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := LoadBytes("x.cue", []byte(tt.src), Options{})
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tt.want != "" && err == nil:
				t.Errorf("loaded, want error %s", tt.want)
			case tt.want != "" && err.Error() != tt.want:
				t.Errorf("error:\n%s\nwant:\n%s", err, tt.want)
			}
		})
	}
}

// TestValidateGo checks the rules Validate applies to scenarios built in
// Go, which the schema cannot see.
func TestValidateGo(t *testing.T) {
	t.Parallel()
	zero := 0
	tests := []struct {
		name   string
		change func(*Scenario)
		want   string
	}{
		{"defaults are valid", func(*Scenario) {}, ""},
		{"no dataset", func(s *Scenario) { s.Dataset = Dataset{} },
			"dataset: exactly one dataset kind must be set, got 0"},
		{"max concurrency zero", func(s *Scenario) { s.Load.MaxConcurrency = &zero },
			"load.max_concurrency: invalid value 0 (want > 0, or leave it out for no limit)"},
		{"ramp-up strategy", func(s *Scenario) { s.Load.RampUp = &RampUp{Strategy: "step", StartRPS: 1, EndRPS: 2} },
			`load.ramp_up.strategy: invalid value "step" (want linear or exponential)`},
		{"negative ramp-up", func(s *Scenario) { s.Load.RampUp = &RampUp{Strategy: "linear", StartRPS: -2, EndRPS: -1} },
			"load.ramp_up: start_rps -2 and end_rps -1 must both be >= 0"},
		{"goodput key", func(s *Scenario) { s.Metrics.Goodput = map[string]float64{"itl": 1} },
			`metrics.goodput.itl: unknown goodput metric "itl" (want ttft, tpot or e2el)`},
		{"goodput NaN", func(s *Scenario) { s.Metrics.Goodput = map[string]float64{"e2el": math.NaN()} },
			"metrics.goodput.e2el: invalid value NaN (want a number of milliseconds >= 0)"},
		{"one threshold", func(s *Scenario) { s.Output.TimelineITLThresholds = []float64{25} },
			"output.timeline_itl_thresholds: want exactly two thresholds in milliseconds, got 1"},
		{"sweep mode", func(s *Scenario) {
			s.Sweep = &Sweep{Axes: map[string][]json.RawMessage{"seed": {json.RawMessage("1")}}, Mode: "random"}
		}, `sweep.mode: invalid value "random" (want grid or zip)`},
		{"empty axis", func(s *Scenario) { s.Sweep = &Sweep{Axes: map[string][]json.RawMessage{"seed": nil}, Mode: "grid"} },
			"sweep.axes.seed: want at least one value"},
		{"no axes", func(s *Scenario) { s.Sweep = &Sweep{Mode: "grid"} }, "sweep.axes: want at least one axis"},
		{"repeat count", func(s *Scenario) { s.Repeat = &Repeat{} }, "repeat.count: invalid value 0 (want >= 1)"},
		{"one variant", func(s *Scenario) {
			s.Compare = &Compare{Variants: map[string]json.RawMessage{"a": json.RawMessage("{}")}}
		}, "compare.variants: want at least two variants, got 1"},
		{"gate without metric", func(s *Scenario) {
			s.Compare = &Compare{Variants: map[string]json.RawMessage{"a": nil, "b": nil}, Gates: []Gate{{MaxIncrease: "1%"}}}
		}, "compare.gates[0]: a gate needs a metric"},
		{"gate limit", func(s *Scenario) {
			s.Compare = &Compare{Variants: map[string]json.RawMessage{"a": nil, "b": nil}, Gates: []Gate{{Metric: "m", MaxDecrease: "x%"}}}
		}, `compare.gates[0]: invalid limit "x%" (want a percentage such as "5%")`},
		{"several rules at once", func(s *Scenario) {
			s.Target.Backend = "vllm-pooling"
			k := 5
			s.Sampling.TopK = &k
			s.Output.TimelineITLThresholds = nil
		}, "output.timeline_itl_thresholds: want exactly two thresholds in milliseconds, got 0\n" +
			`sampling.top_k: sampling.top_k needs backend vllm, openai or openai-chat, got "vllm-pooling"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := Default()
			tt.change(s)
			err := s.Validate()
			if tt.want == "" {
				if err != nil {
					t.Errorf("unexpected error: %v", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Error", err)
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n%s\nwant:\n%s", err, tt.want)
			}
		})
	}
}

func TestValidateSeedRange(t *testing.T) {
	for _, tt := range []struct {
		seed int64
		ok   bool
	}{{0, true}, {4294967295, true}, {-1, false}, {4294967296, false}} {
		s := Default()
		s.Seed = tt.seed
		err := s.Validate()
		if (err == nil) != tt.ok || err != nil && !strings.Contains(err.Error(), "seed") {
			t.Errorf("seed %d: err = %v, want ok=%v", tt.seed, err, tt.ok)
		}
	}
}
