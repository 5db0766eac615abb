package argv

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/scenario"
)

// Format returns the arguments of `vllm bench serve` (the words after
// "serve") that run s: vLLM's flags for the fields that differ from vLLM's
// defaults, in the order of vbench serve --help. Parse gives back a
// scenario with the same hash, except for the fields Dropped lists.
//
// A scenario that has no vllm bench serve form is an error naming the
// field: the built-in simulator, sweep/repeat/compare, a CA file, a
// tokenizer revision, and anything vbench serve does not support yet.
func Format(s *scenario.Scenario) ([]string, error) {
	if err := formattable(s); err != nil {
		return nil, err
	}
	def := argvDefault()
	var out []string
	for _, f := range flags {
		if f.vbenchOnly || f.rust { // vllm bench serve has neither
			continue
		}
		vals, err := flagValues(s, f.name)
		if err != nil {
			return nil, err
		}
		dvals, _ := flagValues(def, f.name)
		if vals == nil || (dvals != nil && slices.Equal(vals, dvals)) {
			continue
		}
		switch f.arity {
		case arityZero:
			out = append(out, f.name)
		case arityOne:
			if v := vals[0]; v == "" || strings.HasPrefix(v, "-") {
				out = append(out, f.name+"="+v)
			} else {
				out = append(out, f.name, v)
			}
		default:
			out = append(out, f.name)
			out = append(out, vals...)
		}
	}
	return out, nil
}

// Dropped lists the fields of s that Format leaves out because vllm bench
// serve has no flag for them and they do not change the benchmark: the
// name, output.records false (vbench serve writes records only with
// --vbench-extras), output.overwrite true (vbench serve's --overwrite
// is vbench's, and vllm bench serve always replaces a result), and
// metrics.scrape_interval (vbench's --scrape-interval: vllm bench
// serve samples no server gauges).
func Dropped(s *scenario.Scenario) []string {
	var out []string
	if s.Name != "" {
		out = append(out, fmt.Sprintf("name %q", s.Name))
	}
	if !s.Output.Records {
		out = append(out, "output.records false")
	}
	if s.Output.Overwrite {
		out = append(out, "output.overwrite true")
	}
	if p := s.Metrics.ScrapeIntervalSec; p != nil {
		out = append(out, "metrics.scrape_interval "+formatFloat(*p))
	}
	if p := s.Metrics.SteadyStateThreshold; p != nil {
		out = append(out, "metrics.steady_state_threshold "+formatFloat(*p))
	}
	if p := s.Metrics.SteadyStateMinWindow; p != nil {
		out = append(out, "metrics.steady_state_min_window "+formatFloat(*p))
	}
	return out
}

// argvDefault is the scenario of an empty command line.
var argvDefault = sync.OnceValue(func() *scenario.Scenario {
	s, err := Parse(nil, Options{})
	if err != nil {
		panic(fmt.Sprintf("internal error: the empty command line does not parse: %v", err))
	}
	return s
})

// formattable reports why s has no vllm bench serve form, if it has none.
func formattable(s *scenario.Scenario) error {
	no := func(field, why string) error { return &Error{Flag: field, Msg: why} }
	t := s.Target
	ds := argvDatasetNamed(s.Dataset.Name)
	var dsErr error
	if ds != nil && ds.formattable != nil {
		dsErr = ds.formattable(s.Dataset)
	}
	switch {
	case s.Sweep != nil || s.Repeat != nil || s.Compare != nil:
		return no("sweep/repeat/compare", "an experiment has no vllm bench serve form (one command line is one run)")
	case t.Simulator != nil:
		return no("target.simulator", "the built-in simulator has no vllm bench serve form (run `vbench sim` and set target.base_url instead)")
	case t.CAFile != "":
		return no("target.ca_file", "vllm bench serve has no flag for a CA file")
	case t.RequestTimeout != 0 && t.RequestTimeout != scenario.DefaultRequestTimeout:
		return no("target.request_timeout", "vllm bench serve has no flag for the request timeout (its client waits up to 6 hours)")
	case s.Tokenizer.Revision != "":
		return no("tokenizer.revision", "vllm bench serve has no flag for a tokenizer revision")
	case ds == nil:
		return &Error{Flag: "dataset " + s.Dataset.Name, Unsupported: true,
			Msg: "vbench serve does not support this dataset yet (it implements " + strings.Join(argvDatasetNames(), ", ") + " so far)"}
	case !slices.Contains(flagByName["--backend"].supported, t.Backend):
		return &Error{Flag: "target.backend " + t.Backend, Msg: "vbench serve does not support this backend yet", Unsupported: true}
	case dsErr != nil:
		return dsErr
	case slices.ContainsFunc(t.LoraModules, func(m string) bool { return m == "" || strings.HasPrefix(m, "-") }):
		return no("target.lora_modules", "vllm bench serve cannot take an empty LoRA module name or one that starts with \"-\" (argparse reads it as an option)")
	case t.StreamCounting == "exact":
		return no("target.stream_counting", "vllm bench serve counts chunks as vLLM's client does (vbench only: vbench serve --stream-counting exact, or vbench run)")
	case s.Metrics.TraceContext:
		return no("metrics.trace_context", "vllm bench serve sends no traceparent header (vbench only: run the scenario with vbench run)")
	case s.Dataset.Name == "speed_bench" && as[dataset.SpeedBenchSpec](s.Dataset).MaxInputLen != 0:
		return no("dataset.speed_bench.max_input_len", "vllm bench serve has no flag for it (vllm-bench's --speed-bench-max-input-len)")
	case s.Dataset.Name == "random" && as[dataset.RandomSpec](s.Dataset).PromptTokenIDs:
		return no("dataset.random.prompt_token_ids", "vllm bench serve has no flag for it (vllm-bench's --prompt-token-ids)")
	case s.Dataset.Name == "hf" && as[dataset.HFSpec](s.Dataset).TextColumn != "":
		return no("dataset.hf.text_column", "vllm bench serve has no flag for it (vllm-bench's --hf-text-column)")
	case t.ResetPrefixCache:
		return no("target.reset_prefix_cache", "vllm bench serve has no flag to reset the prefix cache (vllm-bench's --reset-prefix-cache, in a sweep)")
	case t.Server != nil:
		return no("target.server", "vllm bench serve starts no server (vllm bench sweep serve --serve-cmd does)")
	case s.Seed < 0 || s.Seed > math.MaxUint32:
		return no(fmt.Sprintf("seed %d", s.Seed), "vllm bench serve takes seeds from 0 to 4294967295 (numpy's seed range)")
	}
	return nil
}

// flagValues returns the values that flag name takes for s, as Format
// writes them; nil when the flag is not set (or cannot be, like
// --input-len, which Format never writes). A store_true flag that is set
// has an empty, non-nil slice.
func flagValues(s *scenario.Scenario, name string) ([]string, error) {
	one := func(v string) []string { return []string{v} }
	str := func(v string) []string {
		if v == "" {
			return nil
		}
		return one(v)
	}
	boolean := func(b bool) []string {
		if b {
			return []string{}
		}
		return nil
	}
	intp := func(p *int) []string {
		if p == nil {
			return nil
		}
		return one(strconv.Itoa(*p))
	}
	floatp := func(p *float64) []string {
		if p == nil {
			return nil
		}
		return one(formatFloat(*p))
	}
	if vals, owned := datasetFlagValues(s, name); owned {
		return vals, nil
	}
	t, l, sm, o := s.Target, s.Load, s.Sampling, s.Output
	switch name {
	case "--backend":
		return one(t.Backend), nil
	case "--base-url":
		return str(t.BaseURL), nil
	case "--host":
		return one(t.Host), nil
	case "--port":
		return one(strconv.Itoa(t.Port)), nil
	case "--endpoint":
		return one(t.Endpoint), nil
	case "--header":
		return pairs("target.headers", sortedPairs(t.Headers))
	case "--model":
		return str(t.Model), nil
	case "--served-model-name":
		return str(t.ServedModelName), nil
	case "--request-id-prefix":
		return str(t.RequestIDPrefix), nil
	case "--insecure":
		return boolean(t.Insecure), nil
	case "--profile":
		return boolean(t.Profile), nil
	case "--lora-modules":
		if len(t.LoraModules) == 0 {
			return nil, nil
		}
		return slices.Clone(t.LoraModules), nil
	case "--lora-assignment":
		return one(t.LoraAssignment), nil
	case "--tokenizer":
		return str(s.Tokenizer.Name), nil
	case "--tokenizer-mode":
		return one(s.Tokenizer.Mode), nil
	case "--trust-remote-code":
		return boolean(s.Tokenizer.TrustRemoteCode), nil
	case "--skip-tokenizer-init":
		return boolean(s.Tokenizer.SkipInit), nil
	case "--seed":
		return one(strconv.FormatInt(s.Seed, 10)), nil
	case "--dataset-name":
		return one(vllmDatasetName(s.Dataset.Name)), nil
	case "--input-len", "--output-len":
		return nil, nil
	case "--num-prompts":
		return one(strconv.Itoa(l.NumPrompts)), nil
	case "--request-rate":
		return one(formatFloat(float64(l.RequestRate))), nil
	case "--burstiness":
		return one(formatFloat(float64(l.Burstiness))), nil
	case "--max-concurrency":
		return intp(l.MaxConcurrency), nil
	case "--ramp-up-strategy", "--ramp-up-start-rps", "--ramp-up-end-rps":
		return rampUp(l.RampUp, name)
	case "--probe-request-rate":
		return one(formatFloat(float64(l.ProbeRequestRate))), nil
	case "--num-warmups":
		return one(strconv.Itoa(l.NumWarmups)), nil
	case "--ready-check-timeout-sec":
		return one(strconv.Itoa(l.ReadyCheckTimeoutSec)), nil
	case "--temperature":
		return floatp(sm.Temperature), nil
	case "--top-p":
		return floatp(sm.TopP), nil
	case "--top-k":
		return intp(sm.TopK), nil
	case "--min-p":
		return floatp(sm.MinP), nil
	case "--frequency-penalty":
		return floatp(sm.FrequencyPenalty), nil
	case "--presence-penalty":
		return floatp(sm.PresencePenalty), nil
	case "--repetition-penalty":
		return floatp(sm.RepetitionPenalty), nil
	case "--ignore-eos":
		return boolean(sm.IgnoreEOS), nil
	case "--logprobs":
		return intp(sm.Logprobs), nil
	case "--extra-body":
		if len(sm.ExtraBody) == 0 {
			return nil, nil
		}
		j, err := compactJSON(sm.ExtraBody)
		if err != nil {
			return nil, &Error{Flag: "sampling.extra_body", Msg: fmt.Sprintf("cannot be written as JSON: %v", err)}
		}
		return one(j), nil
	case "--percentile-metrics":
		return one(strings.Join(s.Metrics.PercentileMetrics, ",")), nil
	case "--metric-percentiles":
		ps := make([]string, len(s.Metrics.MetricPercentiles))
		for i, p := range s.Metrics.MetricPercentiles {
			ps[i] = formatFloat(p)
		}
		return one(strings.Join(ps, ",")), nil
	case "--goodput":
		if len(s.Metrics.Goodput) == 0 {
			return nil, nil
		}
		var out []string
		for _, k := range slices.Sorted(maps.Keys(s.Metrics.Goodput)) {
			out = append(out, k+":"+formatFloat(s.Metrics.Goodput[k]))
		}
		return out, nil
	case "--save-result":
		return boolean(o.SaveResult), nil
	case "--save-detailed":
		return boolean(o.SaveDetailed), nil
	case "--append-result":
		return boolean(o.AppendResult), nil
	case "--result-dir":
		return str(o.ResultDir), nil
	case "--result-filename":
		return str(o.ResultFilename), nil
	case "--label":
		return str(o.Label), nil
	case "--metadata":
		return pairs("output.metadata", o.Metadata)
	case "--disable-tqdm":
		return boolean(o.DisableTqdm), nil
	case "--plot-timeline":
		return boolean(o.PlotTimeline), nil
	case "--timeline-itl-thresholds":
		ts := make([]string, len(o.TimelineITLThresholds))
		for i, v := range o.TimelineITLThresholds {
			ts[i] = formatFloat(v)
		}
		return one(strings.Join(ts, ",")), nil
	case "--plot-dataset-stats":
		return boolean(o.PlotDatasetStats), nil
	}
	return nil, fmt.Errorf("internal error: flag %s has no formatter", name)
}

// rampUp returns the values of the ramp-up flag name.
func rampUp(r *scenario.RampUp, name string) ([]string, error) {
	if r == nil {
		return nil, nil
	}
	rate := r.StartRPS
	switch name {
	case "--ramp-up-strategy":
		return []string{r.Strategy}, nil
	case "--ramp-up-end-rps":
		rate = r.EndRPS
	}
	if rate != math.Trunc(rate) || math.Abs(rate) > 1<<53 {
		return nil, &Error{Flag: "load.ramp_up", Msg: fmt.Sprintf("vllm bench serve takes whole ramp-up rates, got %s", formatFloat(rate))}
	}
	return []string{strconv.FormatInt(int64(rate), 10)}, nil
}

// sortedPairs is m as pairs sorted by key.
func sortedPairs(m map[string]string) []scenario.KV {
	out := make([]scenario.KV, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, scenario.KV{Key: k, Value: m[k]})
	}
	return out
}

// pairs writes header or metadata pairs as KEY=VALUE values, in order
// (headers sorted by key, metadata in its own order, which vLLM keeps in
// the result). vLLM strips both sides and splits at the first "=", so a
// key with "=" or either side with surrounding whitespace cannot be
// written. A pair that would start with "-" (and so read as an option)
// gets a leading space, which vLLM strips.
func pairs(field string, kvs []scenario.KV) ([]string, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	var out []string
	for _, kv := range kvs {
		k, v := kv.Key, kv.Value
		if strings.Contains(k, "=") || strings.Trim(k, pySpace) != k || strings.Trim(v, pySpace) != v {
			return nil, &Error{Flag: fmt.Sprintf("%s %q", field, k),
				Msg: "has no vllm bench serve form (vLLM splits KEY=VALUE at the first \"=\" and strips spaces around both)"}
		}
		pair := k + "=" + v
		if strings.HasPrefix(pair, "-") {
			pair = " " + pair
		}
		out = append(out, pair)
	}
	return out, nil
}
