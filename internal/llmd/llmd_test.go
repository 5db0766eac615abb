package llmd

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A generation result with every percentile vbench can report.
const chatResult = `{"date": "20261204-140000", "endpoint_type": "openai-chat", "backend": "openai-chat", "label": null, "model_id": "m", "tokenizer_id": "m", "num_prompts": 10, "request_rate": 4.0, "burstiness": 1.0, "max_concurrency": 8, "duration": 2.5, "completed": 8, "failed": 1, "total_input_tokens": 800, "total_output_tokens": 1600, "request_throughput": 3.2, "request_goodput": null, "output_throughput": 640.0, "total_token_throughput": 960.0, "mean_ttft_ms": 50.5, "median_ttft_ms": 49.0, "std_ttft_ms": 3.5, "p90_ttft_ms": 55.0, "p99_ttft_ms": 60.0, "p99.9_ttft_ms": 61.5, "p0.1_ttft_ms": 45.0, "mean_tpot_ms": 10.1, "median_tpot_ms": 10.0, "std_tpot_ms": 0.2, "p99_tpot_ms": 10.9, "mean_itl_ms": 10.1, "median_itl_ms": 10.0, "std_itl_ms": 0.4, "p99_itl_ms": 11.2, "mean_e2el_ms": 2050.0, "median_e2el_ms": 2040.0, "std_e2el_ms": 20.0, "p99_e2el_ms": 2100.0}`

// A pooling result: no token latencies, an infinite rate, no concurrency.
const poolingResult = `{"date": "20261204-140000", "endpoint_type": "openai-embeddings", "backend": "openai-embeddings", "label": "emb", "model_id": "m", "tokenizer_id": "m", "num_prompts": 4, "request_rate": "inf", "burstiness": 1.0, "max_concurrency": null, "duration": 0.5, "completed": 4, "failed": 0, "total_input_tokens": 64, "request_throughput": 8.0, "total_token_throughput": 128.0, "mean_e2el_ms": 12.0, "median_e2el_ms": 11.0, "std_e2el_ms": 1.0, "p99_e2el_ms": 14.0}`

// Every report vbench writes is valid against the published v0.2.1
// schema, and maps vllm bench serve's keys as llm-d's importer does.
func TestBuildValidates(t *testing.T) {
	start := time.Date(2026, 12, 4, 14, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		in    Input
		check func(t *testing.T, r *Report)
	}{
		{"chat", Input{Result: []byte(chatResult), Scenario: json.RawMessage(`{"name": "x"}`), ScenarioHash: "sha256:ab", ExperimentHash: "sha256:cd",
			Name: "x", ToolVersion: "0.1.0", Source: "random", FixedInputLen: 100, FixedOutputLen: 200, Start: start},
			func(t *testing.T, r *Report) {
				a := r.Results.RequestPerformance.Aggregate
				if a.Requests.Total != 10 || a.Requests.Failures != 1 || a.Requests.Incomplete == nil || *a.Requests.Incomplete != 1 {
					t.Errorf("requests %+v", a.Requests)
				}
				if a.Requests.InputLength.Mean != 100 || a.Requests.OutputLength.Mean != 200 {
					t.Errorf("lengths %+v %+v", a.Requests.InputLength, a.Requests.OutputLength)
				}
				tt := a.Latency.TimeToFirstToken
				if tt.Units != "ms" || tt.Mean != 50.5 || *tt.P50 != 49 || *tt.P90 != 55 || *tt.P99 != 60 || *tt.P99p9 != 61.5 || *tt.P0p1 != 45 || *tt.Stddev != 3.5 {
					t.Errorf("TTFT %+v", tt)
				}
				if a.Latency.TimePerOutputToken.Units != "ms/token" || a.Latency.RequestLatency.Mean != 2050 {
					t.Errorf("TPOT or E2EL wrong")
				}
				if a.Throughput.OutputTokenRate.Mean != 640 || a.Throughput.RequestRate.Units != "queries/s" || a.Throughput.InputTokenRate.Mean != 320 {
					t.Errorf("throughput %+v", a.Throughput)
				}
				s := r.Scenario.Load.Standardized
				if s.Tool != "vbench" || *s.RateQPS != 4 || *s.Concurrency != 8 || s.InputSeqLen.Value != 100 || s.InputSeqLen.Distribution != "fixed" || s.OutputSeqLen.Value != 200 {
					t.Errorf("load %+v", s)
				}
				if r.Run.EID != "sha256:cd" || r.Run.Time.Start != "2026-12-04T14:00:00Z" || r.Run.Time.End != "2026-12-04T14:00:02.5Z" || r.Run.Time.Duration != "PT2.5S" {
					t.Errorf("run %+v %+v", r.Run, r.Run.Time)
				}
			}},
		{"pooling", Input{Result: []byte(poolingResult), ToolVersion: "0.1.0", Source: "sampled", Label: "emb"},
			func(t *testing.T, r *Report) {
				a := r.Results.RequestPerformance.Aggregate
				if a.Latency.TimeToFirstToken != nil || a.Latency.RequestLatency == nil || a.Requests.OutputLength != nil {
					t.Errorf("latency %+v, output length %+v", a.Latency, a.Requests.OutputLength)
				}
				s := r.Scenario.Load.Standardized
				if s.RateQPS != nil || s.Concurrency != nil || s.InputSeqLen.Distribution != "other" || s.InputSeqLen.Value != 16 {
					t.Errorf("load %+v", s)
				}
				if r.Run.Time != nil || len(r.Run.Keywords) != 1 {
					t.Errorf("run %+v", r.Run)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Build(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			data, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if err := Validate(data); err != nil {
				t.Fatalf("invalid report: %v\n%s", err, data)
			}
			tc.check(t, r)
			again, _ := Build(tc.in)
			if again.Run.UID != r.Run.UID || len(r.Run.UID) != 36 {
				t.Errorf("uid %q, then %q", r.Run.UID, again.Run.UID)
			}
		})
	}
}

// The schema check is real: reports that break it are refused.
func TestValidateRefuses(t *testing.T) {
	r, err := Build(Input{Result: []byte(chatResult), ToolVersion: "v", Source: "random"})
	if err != nil {
		t.Fatal(err)
	}
	good, _ := json.Marshal(r)
	for name, mutate := range map[string]func(string) string{
		"no run uid":        func(s string) string { return strings.Replace(s, `"uid":`, `"uuid":`, 1) },
		"unknown unit":      func(s string) string { return strings.Replace(s, `"units":"ms"`, `"units":"minutes"`, 1) },
		"negative total":    func(s string) string { return strings.Replace(s, `"total":10`, `"total":-1`, 1) },
		"unknown source":    func(s string) string { return strings.Replace(s, `"source":"random"`, `"source":"dice"`, 1) },
		"extra results key": func(s string) string { return strings.Replace(s, `"results":{`, `"results":{"bogus":1,`, 1) },
	} {
		bad := mutate(string(good))
		if bad == string(good) {
			t.Fatalf("%s: the mutation changed nothing", name)
		}
		if err := Validate([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := Build(Input{Result: []byte(`[1]`)}); err == nil {
		t.Error("a result that is not an object was accepted")
	}
}
