package report

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/vbench/vbench/internal/metrics"
)

// legacyKeys are the keys the example files predate: their client wrote
// latencies and queue_times only with --save-detailed, and not at all in
// these runs. The production key list (upstream vllm/benchmarks/serve.py, benchmark()'s result dict) has them; the
// comparisons with the old files remove them from the built object.
var legacyKeys = []string{"latencies", "queue_times"}

func marshalWithout(t *testing.T, o *Object, drop ...string) []byte {
	t.Helper()
	for _, k := range drop {
		o.Delete(k)
	}
	b, err := MarshalPython(o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestResultGoldenVLLM feeds BuildResult the values of each vLLM result
// file and requires the file's exact bytes back.
func TestResultGoldenVLLM(t *testing.T) {
	for _, tt := range []struct {
		file     string
		detailed bool
	}{
		{"random-basic.json", false},
		{"random-detailed.json", true},
		{"chat-detailed.json", true},
	} {
		t.Run(tt.file, func(t *testing.T) {
			o, want := loadVLLM(t, tt.file)
			in := headerFromVLLM(t, o)
			in.Summary = summaryFromVLLM(t, o)
			in.SaveDetailed = tt.detailed
			got := marshalWithout(t, BuildResult(in), legacyKeys...)
			if !bytes.Equal(got, want) {
				t.Errorf("result differs at byte %d:\n got %.200s\nwant %.200s", firstDiff(got, want),
					got[firstDiff(got, want):], want[firstDiff(got, want):])
			}
		})
	}
}

// TestResultEndToEnd runs chat-detailed.json's per-request values through
// metrics.ComputeOutcomes and BuildResult: every statistic is recomputed
// by vbench, and the file must still come out byte for byte. (The
// completions example cannot be used here: its TPOTs depend on latencies
// its arrays do not determine exactly; see the metrics golden tests.)
func TestResultEndToEnd(t *testing.T) {
	o, want := loadVLLM(t, "chat-detailed.json")
	in := headerFromVLLM(t, o)
	v := summaryFromVLLM(t, o)
	outs := make([]metrics.Outcome, len(v.StartTimes))
	for i, st := range v.StartTimes {
		ts := st + v.TTFTs[i]
		for _, itl := range v.ITLs[i] {
			ts += itl
		}
		outs[i] = metrics.Outcome{Success: v.Errors[i] == "", PromptLen: v.InputLens[i], OutputTokens: v.OutputLens[i],
			GeneratedText: v.GeneratedTexts[i], TTFT: v.TTFTs[i], Latency: ts - st, ITLs: v.ITLs[i],
			StartTime: st, Error: v.Errors[i]}
	}
	in.Summary = metrics.ComputeOutcomes(outs, v.Duration, metrics.Options{
		PercentileMetrics: []string{metrics.TTFT, metrics.TPOT, metrics.ITL},
		Percentiles:       []float64{99},
		CountTokens:       func(s string) int { t.Fatal("tokenizer consulted"); return 0 },
	})
	in.SaveDetailed = true
	got := marshalWithout(t, BuildResult(in), legacyKeys...)
	if !bytes.Equal(got, want) {
		i := firstDiff(got, want)
		t.Errorf("result differs at byte %d:\n got %.200s\nwant %.200s", i, got[i:], want[i:])
	}
}

func sampleSummary() *metrics.Summary {
	return metrics.ComputeOutcomes([]metrics.Outcome{
		{Success: true, PromptLen: 8, OutputTokens: 3, GeneratedText: "héllo 😀", TTFT: 0.25, Latency: 0.5,
			ITLs: []float64{0.125, 0.125}, StartTime: 0.001, QueueTime: 0.5},
		{Success: false, PromptLen: 9, StartTime: 0.002, Error: "Bad Request"},
	}, 2, metrics.Options{
		PercentileMetrics: []string{metrics.TTFT, metrics.E2EL, metrics.ClientQueueTime},
		Percentiles:       []float64{50, 99.9},
		CountTokens:       func(string) int { return 1 },
		MaxConcurrencySet: true,
	})
}

func TestResultKeyOrder(t *testing.T) {
	eight := 8
	in := ResultInput{Date: "20260101-000000", Backend: "openai-chat", ModelID: "org/m", NumPrompts: 2,
		RequestRate: 10, Burstiness: 1, MaxConcurrency: &eight, Summary: sampleSummary()}
	header := []string{"date", "endpoint_type", "backend", "label", "model_id", "tokenizer_id", "num_prompts",
		"request_rate", "burstiness", "max_concurrency"}
	body := []string{"duration", "completed", "failed", "total_input_tokens", "total_output_tokens",
		"request_throughput", "request_goodput", "output_throughput", "total_token_throughput"}
	stats := []string{"max_output_tokens_per_s", "max_concurrent_requests", "rtfx",
		"mean_ttft_ms", "median_ttft_ms", "std_ttft_ms", "p50_ttft_ms", "p99.9_ttft_ms",
		"mean_e2el_ms", "median_e2el_ms", "std_e2el_ms", "p50_e2el_ms", "p99.9_e2el_ms",
		"mean_client_queue_time_ms", "median_client_queue_time_ms", "std_client_queue_time_ms",
		"p50_client_queue_time_ms", "p99.9_client_queue_time_ms"}
	tests := []struct {
		name   string
		detail bool
		want   []string
	}{
		{"default keeps latencies and queue_times", false,
			slices.Concat(header, body, []string{"latencies", "queue_times"}, stats)},
		{"detailed", true, slices.Concat(header, body, []string{"input_lens", "output_lens", "ttfts", "itls",
			"latencies", "start_times", "queue_times", "generated_texts", "errors"}, stats)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in.SaveDetailed = tt.detail
			if got := BuildResult(in).Keys(); !slices.Equal(got, tt.want) {
				t.Errorf("keys\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestResultHeaderValues(t *testing.T) {
	in := ResultInput{Date: "20260101-000000", Backend: "openai", Label: "mine", ModelID: "m", TokenizerID: "tok",
		NumPrompts: 2, RequestRate: 0.5, Burstiness: math.Inf(1), Summary: sampleSummary()}
	got, err := MarshalResult(in)
	if err != nil {
		t.Fatal(err)
	}
	wantPrefix := `{"date": "20260101-000000", "endpoint_type": "openai", "backend": "openai", "label": "mine", ` +
		`"model_id": "m", "tokenizer_id": "tok", "num_prompts": 2, "request_rate": 0.5, "burstiness": Infinity, ` +
		`"max_concurrency": null, "duration": 2.0, "completed": 1, "failed": 1, "total_input_tokens": 8, ` +
		`"total_output_tokens": 3, "request_throughput": 0.5, "request_goodput": null, "output_throughput": 1.5, ` +
		`"total_token_throughput": 5.5, "latencies": [0.5, 0.0], "queue_times": [0.5, 0.0], ` +
		`"max_output_tokens_per_s": 3.0, "max_concurrent_requests": 1, "rtfx": 0.0, "mean_ttft_ms": 250.0`
	if !bytes.HasPrefix(got, []byte(wantPrefix)) {
		i := firstDiff(got, []byte(wantPrefix))
		t.Errorf("differs at byte %d:\n got %s\nwant %s", i, got[i:], wantPrefix[i:])
	}
	if bytes.HasSuffix(got, []byte("\n")) {
		t.Error("trailing newline")
	}
}

func TestResultMetadataCollisions(t *testing.T) {
	in := ResultInput{Date: "d", Backend: "b", ModelID: "m", NumPrompts: 2, RequestRate: math.Inf(1), Burstiness: 1,
		Summary: sampleSummary(),
		Metadata: []Metadata{
			{"completed", "many"}, {"gpu", "H100"}, {"date", "override"}, {"errors", "e"}, {"request_rate", "7"},
		}}
	o := BuildResult(in)
	wantKeys := []string{"date", "endpoint_type", "backend", "label", "model_id", "tokenizer_id", "num_prompts",
		"completed", "gpu", "request_rate", "burstiness", "max_concurrency", "duration", "failed"}
	if got := o.Keys()[:len(wantKeys)]; !slices.Equal(got, wantKeys) {
		t.Errorf("keys\n got %q\nwant %q", got, wantKeys)
	}
	checks := map[string]any{"completed": 1, "gpu": "H100", "date": "override", "request_rate": "inf"}
	for k, want := range checks {
		if v, _ := o.Get(k); v != want {
			t.Errorf("%s = %v, want %v", k, v, want)
		}
	}
	if _, ok := o.Get("errors"); ok {
		t.Error("metadata key errors survived detail stripping")
	}
}

func TestResultFullGolden(t *testing.T) {
	three := 3
	in := ResultInput{
		Date: "20260102-030405", Backend: "vllm", Label: "ramp", ModelID: "org/model", TokenizerID: "org/model",
		NumPrompts: 2, Metadata: []Metadata{{"gpu", "H100 ×8"}}, RequestRate: math.Inf(1), Burstiness: 0.5,
		MaxConcurrency: &three, RampUp: &RampUp{Strategy: "linear", StartRPS: 1, EndRPS: 10},
		Summary: sampleSummary(), SaveDetailed: true,
		Probe:           &metrics.ProbeSummary{Completed: 4, Failed: 0, MedianE2ELMs: 11.5, P99E2ELMs: 19.25, MaxE2ELMs: 20},
		RPSChangeEvents: []RPSChangeEvent{{1, "2026-01-02T03:04:00.000001"}, {2, "2026-01-02T03:04:01.5"}},
		SpecDecode:      &SpecDecodeStats{AcceptanceRate: 62.5, AcceptanceLength: 2.25, NumDrafts: 8, DraftTokens: 24, AcceptedTokens: 15},
		Diffusion:       &DiffusionStats{CommittedThroughput: 1e-05, StepsPerCanvas: 3, CommittedPerStep: 1.5e16, CommittedTokens: 9, DenoisingSteps: 6, CanvasPositions: 48},
		VBench:          json.RawMessage(`{"version": "v0.1.0", "scenario_hash": "abc123"}`),
	}
	got, err := MarshalResult(in)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "result-full.golden.json", got)
	keys := BuildResult(in).Keys()
	if keys[len(keys)-1] != "vbench" {
		t.Errorf("last key = %q, want vbench", keys[len(keys)-1])
	}
	var w bytes.Buffer
	if err := WriteResult(&w, in); err != nil || !bytes.Equal(w.Bytes(), got) {
		t.Errorf("WriteResult = %q, %v", w.Bytes(), err)
	}
}
