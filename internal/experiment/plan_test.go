package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/scenario"
)

func loadScenario(t *testing.T, src string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.LoadBytes("test.cue", []byte(src), scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

const planBase = `
target: {simulator: {ttft_ms: 5, itl_ms: 1}, model: "vbench-sim"}
tokenizer: name: "o200k_base"
dataset: random: {input_len: 24, output_len: 6}
load: {num_prompts: 4, max_concurrency: 2}
output: result_dir: "out"
`

func TestRepeatSeed(t *testing.T) {
	tests := []struct {
		seed  int64
		r     int
		fixed bool
		want  int64
	}{
		{0, 0, false, 0},
		// SplitMix64's first output from state 0 is 0xE220A8397B1DCDAF;
		// its low 32 bits are 0x7B1DCDAF.
		{0, 1, false, 0x7B1DCDAF},
		{0, 2, false, 2713282036},
		{42, 1, false, 803958421},
		{42, 3, false, 319790930},
		{42, 3, true, 42},
		{7, 0, true, 7},
	}
	for _, tt := range tests {
		if got := RepeatSeed(tt.seed, tt.r, tt.fixed); got != tt.want {
			t.Errorf("RepeatSeed(%d, %d, %v) = %d, want %d", tt.seed, tt.r, tt.fixed, got, tt.want)
		}
	}
}

// A sweep, a compare and repeats together: the runs interleave repeat by
// repeat, point by point, variant by variant (baseline first in even
// repeats, last in odd ones), and each
// run's scenario has the point's values, the variant's fields, the
// repeat's seed and its own result file.
func TestExpandInterleaves(t *testing.T) {
	sc := loadScenario(t, planBase+`
sweep: axes: {"load.max_concurrency": [1, 8], "dataset.random.input_len": [16, 32]}
repeat: count: 2
compare: {
	baseline: "new"
	variants: {old: target: simulator: ttft_ms: 9, new: {}}
}
`)
	plan, err := Expand(sc)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Hash != sc.Hash() || plan.Dir != "out" || len(plan.Runs) != 16 {
		t.Fatalf("plan hash %s dir %s with %d runs", plan.Hash, plan.Dir, len(plan.Runs))
	}
	if want := []string{"dataset.random.input_len", "load.max_concurrency"}; !reflect.DeepEqual(plan.Spec.Axes, want) {
		t.Errorf("axes %q", plan.Spec.Axes)
	}
	if want := []string{"new", "old"}; !reflect.DeepEqual(plan.Spec.Variants, want) || plan.Spec.Baseline != "new" {
		t.Errorf("variants %q baseline %q", plan.Spec.Variants, plan.Spec.Baseline)
	}
	var files []string
	for _, r := range plan.Runs[:8] {
		files = append(files, filepath.Base(r.Path))
	}
	want := []string{
		"new-input_len=16-max_concurrency=1-run=0.json", "old-input_len=16-max_concurrency=1-run=0.json",
		"new-input_len=16-max_concurrency=8-run=0.json", "old-input_len=16-max_concurrency=8-run=0.json",
		"new-input_len=32-max_concurrency=1-run=0.json", "old-input_len=32-max_concurrency=1-run=0.json",
		"new-input_len=32-max_concurrency=8-run=0.json", "old-input_len=32-max_concurrency=8-run=0.json",
	}
	if !reflect.DeepEqual(files, want) {
		t.Errorf("run order\n got %q\nwant %q", files, want)
	}
	for i, r := range plan.Runs {
		s := r.Scenario
		pt := plan.Spec.Points[r.Info.Point]
		inputLen, conc := ValueText(pt.Values[0]), ValueText(pt.Values[1])
		wantTTFT := 5.0
		if r.Info.Variant == "old" {
			wantTTFT = 9
		}
		wantSeed := int64(0)
		if r.Info.Repeat == 1 {
			wantSeed = 0x7B1DCDAF
		}
		switch {
		case s.Sweep != nil || s.Repeat != nil || s.Compare != nil:
			t.Errorf("run %d keeps experiment fields", i)
		case s.Dataset.Spec.(*dataset.RandomSpec).InputLen != atoi(inputLen) || *s.Load.MaxConcurrency != atoi(conc):
			t.Errorf("run %d (%s): input_len %d, max_concurrency %d", i, r.Label, s.Dataset.Spec.(*dataset.RandomSpec).InputLen, *s.Load.MaxConcurrency)
		case s.Target.Simulator.TTFTMs != wantTTFT:
			t.Errorf("run %d (%s): ttft %v", i, r.Label, s.Target.Simulator.TTFTMs)
		case s.Seed != wantSeed || r.Info.Seed != wantSeed:
			t.Errorf("run %d (%s): seed %d", i, r.Label, s.Seed)
		case !s.Output.SaveResult || s.Output.ResultDir != "out" || filepath.Join("out", s.Output.ResultFilename) != r.Path:
			t.Errorf("run %d output %+v, path %s", i, s.Output, r.Path)
		case r.Info.Index != i || r.Info.Runs != 16 || r.Info.Hash != plan.Hash || r.Info.Spec != &plan.Spec:
			t.Errorf("run %d info %+v", i, r.Info)
		}
	}
	// Repeat 1 runs each point's variants in reverse order.
	if got := plan.Runs[12].Label; got != "input_len=32-max_concurrency=1, variant old, repeat 1" {
		t.Errorf("label %q", got)
	}
	if got := plan.Runs[13].Label; got != "input_len=32-max_concurrency=1, variant new, repeat 1" {
		t.Errorf("label %q", got)
	}
	if sc.Sweep == nil || sc.Compare == nil || *sc.Load.MaxConcurrency != 2 {
		t.Error("Expand changed its scenario")
	}
}

func atoi(s string) int {
	var n int
	if err := json.Unmarshal([]byte(s), &n); err != nil {
		panic(err)
	}
	return n
}

func TestExpandShapes(t *testing.T) {
	tests := []struct {
		name  string
		extra string
		files []string
		check func(*Plan) string
	}{
		{"zip", `sweep: {mode: "zip", axes: {"load.max_concurrency": [1, 8], "load.num_prompts": [10, 80]}}`,
			[]string{"max_concurrency=1-num_prompts=10.json", "max_concurrency=8-num_prompts=80.json"},
			func(p *Plan) string {
				if p.Runs[1].Scenario.Load.NumPrompts != 80 || *p.Runs[1].Scenario.Load.MaxConcurrency != 8 {
					return "zip point 1 is not (8, 80)"
				}
				return ""
			}},
		{"repeat with fixed seed", "seed: 9\nrepeat: {count: 3, fixed_seed: true}", []string{"run=0.json", "run=1.json", "run=2.json"},
			func(p *Plan) string {
				for _, r := range p.Runs {
					if r.Scenario.Seed != 9 {
						return "a repeat changed the fixed seed"
					}
				}
				return ""
			}},
		{"point wins over variant", `sweep: axes: "load.max_concurrency": [3]
compare: variants: {a: load: max_concurrency: 7, b: {}}`, []string{"a-max_concurrency=3.json", "b-max_concurrency=3.json"},
			func(p *Plan) string {
				if *p.Runs[0].Scenario.Load.MaxConcurrency != 3 {
					return "the variant's max_concurrency won over the point's"
				}
				return ""
			}},
		{"same last field name", `sweep: axes: {"dataset.random.output_len": [4], "target.simulator.output_len": [9]}`,
			[]string{"dataset.random.output_len=4-target.simulator.output_len=9.json"}, nil},
		{"string values and prefix", `output: result_filename: "bench.json"
sweep: axes: "load.request_rate": ["inf", 2.5]`, []string{"bench-request_rate=inf.json", "bench-request_rate=2.5.json"},
			func(p *Plan) string {
				if !p.Runs[0].Scenario.Load.RequestRate.IsInf() || p.Runs[1].Scenario.Load.RequestRate != 2.5 {
					return "request rates not applied"
				}
				return ""
			}},
		{"header values never reach file names", `sweep: axes: "target.headers": [{"X-Key": "secret1"}]`,
			[]string{`headers=__X-Key____redacted___.json`}, func(p *Plan) string {
				if p.Runs[0].Scenario.Target.Headers["X-Key"] != "secret1" {
					return "the run lost its header value"
				}
				if v := ValueText(p.Spec.Points[0].Values[0]); v != `{"X-Key":"<redacted>"}` {
					return "the saved point shows " + v
				}
				return ""
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := Expand(loadScenario(t, planBase+tt.extra))
			if err != nil {
				t.Fatal(err)
			}
			var files []string
			for _, r := range plan.Runs {
				files = append(files, filepath.Base(r.Path))
			}
			if !reflect.DeepEqual(files, tt.files) {
				t.Errorf("files %q, want %q", files, tt.files)
			}
			if tt.check != nil {
				if msg := tt.check(plan); msg != "" {
					t.Error(msg)
				}
			}
		})
	}
}

// serverKeys are the gateable metrics of the server's /metrics, which every
// run scrapes, in table order.
const serverKeys = `spec_decode_acceptance_rate, spec_decode_acceptance_length, spec_decode_num_drafts, ` +
	`spec_decode_draft_tokens, spec_decode_accepted_tokens, diffusion_committed_throughput, diffusion_steps_per_canvas, ` +
	`diffusion_committed_per_step, diffusion_committed_tokens, diffusion_denoising_steps, diffusion_canvas_positions, prefix_cache_hit_rate, ` +
	sampledKeys

// sampledKeys are the gateable summaries of the server's gauges, which a
// run samples by default (metrics.scrape_interval).
const sampledKeys = `server_kv_cache_usage_max, server_kv_cache_usage_mean, server_running_max, server_running_mean, ` +
	`server_waiting_max, server_waiting_mean, `

// tokenKeys are the token-accounting metrics of a run with a client
// tokenizer.
const tokenKeys = `token_disagreeing_share, token_mean_abs_diff, token_no_server_usage, `

// steadyKeys are the steady-state metrics a closed-loop run (planBase)
// can gate on.
const steadyKeys = `steady_state_duration, steady_state_request_throughput, steady_state_input_throughput, ` +
	`steady_state_output_throughput, steady_state_total_token_throughput, steady_state_mean_ttft_ms, ` +
	`steady_state_median_ttft_ms, steady_state_mean_tpot_ms, steady_state_median_tpot_ms, steady_state_p90_tpot_ms, ` +
	`steady_state_p99_tpot_ms, `

func TestExpandErrors(t *testing.T) {
	tests := []struct {
		name, extra, want string
	}{
		{"colliding file names", `sweep: axes: "output.label": ["a b", "a_b"]`, "would both write label=a_b.json"},
		{"gate on an unreported percentile", `compare: {variants: {a: {}, b: {}}, gates: [{metric: "p95_ttft_ms", max_increase: "5%"}]}`,
			`compare.gates[0].metric: p95_ttft_ms needs 95 in metrics.metric_percentiles; the nearest of the `},
		{"the nearest metrics", `compare: {variants: {a: {}, b: {}}, gates: [{metric: "p95_ttft_ms", max_increase: "5%"}]}`,
			` metrics it can gate on: p99_ttft_ms, std_ttft_ms, mean_ttft_ms, median_ttft_ms, steady_state_mean_ttft_ms`},
		{"gate on an unselected metric", `compare: {variants: {a: {}, b: {}}, gates: [{metric: "mean_e2el_ms", max_increase: "5%"}]}`,
			`compare.gates[0].metric: mean_e2el_ms needs e2el in metrics.percentile_metrics; the nearest of the `},
		{"gate on a misspelt key", `compare: {variants: {a: {}, b: {}}, gates: [{metric: "output_throughput_tok", max_decrease: "5%"}]}`,
			`compare.gates[0].metric: "output_throughput_tok" is not a metric (did you mean output_throughput?); the nearest of the `},
		{"gate on a typo", `compare: {variants: {a: {}, b: {}}, gates: [{metric: "p99_ttfx_ms", max_increase: "5%"}]}`,
			`compare.gates[0].metric: "p99_ttfx_ms" is not a metric (did you mean p99_ttft_ms?); the nearest of the `},
		{"gate on a probe metric", `compare: {variants: {a: {}, b: {}}, gates: [{metric: "probe_median_e2el_ms", max_increase: "5%"}]}`,
			`compare.gates[0].metric: probe_median_e2el_ms needs `},
		{"gate on a list", `compare: {variants: {a: {}, b: {}}, gates: [{metric: "spec_decode_per_position_acceptance_rates", max_decrease: "5%"}]}`,
			`spec_decode_per_position_acceptance_rates is a list, not a number a gate can compare`},
		{"gate on goodput without SLOs", `compare: {variants: {a: {}, b: {}}, gates: [{metric: "output_throughput", max_decrease: "5%"}, {metric: "request_goodput", max_decrease: "5%"}]}`,
			`compare.gates[1].metric: request_goodput needs metrics.goodput; the nearest of the `},
		{"gate on the queue-inclusive latency at an infinite rate", `metrics: percentile_metrics: ["e2el", "e2el_including_client_queue"]
compare: {variants: {a: {}, b: {}}, gates: [{metric: "mean_e2el_including_client_queue_ms", max_increase: "5%"}]}`,
			`mean_e2el_including_client_queue_ms needs a finite load.request_rate; the nearest of the `},
		{"gate on a metric a variant drops", `metrics: percentile_metrics: ["ttft", "e2el"]
compare: {variants: {a: {}, b: {metrics: percentile_metrics: ["ttft"]}}, gates: [{metric: "p99_e2el_ms", max_increase: "5%"}]}`,
			`compare.gates[0].metric: p99_e2el_ms needs e2el in metrics.percentile_metrics (at variant b); the nearest of the `},
		{"gate on a server gauge without sampling", `metrics: scrape_interval: 0
compare: {variants: {a: {}, b: {}}, gates: [{metric: "server_waiting_max", max_increase: "5%"}]}`,
			`compare.gates[0].metric: server_waiting_max comes from the server /metrics samples (metrics.scrape_interval), which this scenario does not read`},
		{"gate on a percentile a sweep point drops", `sweep: axes: "metrics.metric_percentiles": [[99], [50]]
compare: {variants: {a: {}, b: {}}, gates: [{metric: "p99_ttft_ms", max_increase: "5%"}]}`,
			`p99_ttft_ms needs 99 in metrics.metric_percentiles (at sweep point`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Expand(loadScenario(t, planBase+tt.extra))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	ok := planBase + `metrics: {percentile_metrics: ["ttft", "e2el"], metric_percentiles: [50, 99.9]}
compare: {variants: {a: {}, b: {}}, gates: [{metric: "p99.9_e2el_ms", max_increase: "5%"}, {metric: "p50_ttft_ms", max_increase: "1%"},
	{metric: "output_throughput", max_decrease: "3%"}, {metric: "std_ttft_ms", max_increase: "50%"},
	{metric: "total_input_tokens", max_decrease: "1%"}, {metric: "client_send_lag_p99_ms", max_increase: "50%"},
	{metric: "server_waiting_max", max_increase: "50%"}]}`
	if _, err := Expand(loadScenario(t, ok)); err != nil {
		t.Errorf("valid gates refused: %v", err)
	}
	if _, err := Expand(loadScenario(t, planBase)); err == nil {
		t.Error("a single-run scenario expanded")
	}
}

func TestSanitizeName(t *testing.T) {
	long := strings.Repeat("a", 65)
	sum := sha256.Sum256([]byte(long))
	tests := []struct{ in, want string }{
		{"max_concurrency=8", "max_concurrency=8"},
		{"a/b c", "a_b_c"},
		{"x=1.5,y=-2+3", "x=1.5,y=-2+3"},
		{"é", "__"},
		// Cut to 55, then "~" and 8 hex digits of the name's SHA-256.
		{long, strings.Repeat("a", 55) + "~" + hex.EncodeToString(sum[:4])},
	}
	for _, tt := range tests {
		if got := sanitizeName(tt.in); got != tt.want {
			t.Errorf("sanitizeName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestValueText(t *testing.T) {
	for raw, want := range map[string]string{`8`: "8", `"inf"`: "inf", `2.50`: "2.50", `{"a": 1.0}`: `{"a":1.0}`,
		`true`: "true", `["<x>"]`: `["<x>"]`} {
		if got := ValueText(json.RawMessage(raw)); got != want {
			t.Errorf("ValueText(%s) = %q, want %q", raw, got, want)
		}
	}
}

// TestMetricSetupKeys checks the metrics a run of a scenario can gate on,
// in table order: those a gate's error picks its nearest names from.
func TestMetricSetupKeys(t *testing.T) {
	tests := []struct {
		name, extra, want string
	}{
		{"closed loop", ``, `duration, completed, failed, ` +
			`total_input_tokens, total_output_tokens, request_throughput, output_throughput, total_token_throughput, ` +
			`max_output_tokens_per_s, max_concurrent_requests, rtfx, peak_overlapping_requests, ` + serverKeys + tokenKeys + `client_send_lag_p50_ms, client_send_lag_p99_ms, ` +
			`client_send_lag_max_ms, client_cpu_fraction, client_gc_pause_ms, ` +
			steadyKeys + `mean_ttft_ms, median_ttft_ms, std_ttft_ms, p99_ttft_ms, ` +
			`mean_tpot_ms, median_tpot_ms, std_tpot_ms, p99_tpot_ms, mean_itl_ms, median_itl_ms, std_itl_ms, p99_itl_ms`},
		{"queue-inclusive latency at an infinite rate", `metrics: percentile_metrics: ["e2el", "e2el_including_client_queue"]
`, `duration, completed, failed, total_input_tokens, ` +
			`total_output_tokens, request_throughput, output_throughput, total_token_throughput, max_output_tokens_per_s, ` +
			`max_concurrent_requests, rtfx, peak_overlapping_requests, ` + serverKeys + tokenKeys + `client_send_lag_p50_ms, client_send_lag_p99_ms, client_send_lag_max_ms, ` +
			`client_cpu_fraction, client_gc_pause_ms, ` + steadyKeys + `mean_e2el_ms, median_e2el_ms, std_e2el_ms, p99_e2el_ms`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := loadScenario(t, planBase+tt.extra)
			if got := strings.Join(MetricSetup(sc).Keys(), ", "); got != tt.want {
				t.Errorf("keys\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// sweep.link keeps the grid points whose linked axes take equal values
// (vLLM's --link-vars), and refuses links to missing axes or links that
// leave nothing.
func TestSweepLink(t *testing.T) {
	sc := &scenario.Scenario{Load: scenario.Load{NumPrompts: 1}, Sweep: &scenario.Sweep{Mode: "grid",
		Axes: map[string][]json.RawMessage{
			"load.max_concurrency":            {json.RawMessage("8"), json.RawMessage("16")},
			"target.server.args.max_num_seqs": {json.RawMessage("8"), json.RawMessage("16.0"), json.RawMessage("32")},
			"load.num_prompts":                {json.RawMessage("10"), json.RawMessage("20")},
		},
		Link: map[string]string{"target.server.args.max_num_seqs": "load.max_concurrency"}}}
	var spec Spec
	ovs, err := expandPoints(sc, &spec)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range spec.Points {
		names = append(names, p.Name)
	}
	want := []string{"max_concurrency=8-num_prompts=10-max_num_seqs=8", "max_concurrency=8-num_prompts=20-max_num_seqs=8",
		"max_concurrency=16-num_prompts=10-max_num_seqs=16.0", "max_concurrency=16-num_prompts=20-max_num_seqs=16.0"}
	if !slices.Equal(names, want) || len(ovs) != 4 {
		t.Errorf("points %q, want %q", names, want)
	}
	sc.Sweep.Link = map[string]string{"load.max_concurrency": "load.nope"}
	if _, err := expandPoints(sc, &Spec{}); err == nil || !strings.Contains(err.Error(), "load.nope is not a sweep axis") {
		t.Errorf("a link to a missing axis: %v", err)
	}
	sc.Sweep.Link = map[string]string{"load.max_concurrency": "load.num_prompts"}
	if _, err := expandPoints(sc, &Spec{}); err == nil || !strings.Contains(err.Error(), "leaves no point") {
		t.Errorf("a link that leaves nothing: %v", err)
	}
}
