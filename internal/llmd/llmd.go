// Package llmd writes a run's result as an llm-d Benchmark Report, version
// 0.2.1: the format llm-d's dashboards read, into which inference-perf's,
// GuideLLM's and vllm bench serve's results are converted. The report
// carries the run (its id, experiment id and times), the workload (vbench
// as the tool, the input and output lengths, rate and concurrency, and the
// scenario itself as the native configuration) and the request
// performance (request counts, lengths, latency statistics and
// throughputs), mapped from vllm bench serve's result keys as llm-d's own
// importer maps them. schema/br_v0_2_1_json_schema.json is the published
// schema; the tests validate every report against it.
package llmd

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/vbench/vbench/internal/py"
)

// Version is the Benchmark Report version written.
const Version = "0.2.1"

// Report is a Benchmark Report v0.2.1 (the parts vbench fills).
type Report struct {
	// Version is the report schema's version, "0.2.1".
	Version string `json:"version"`
	// Run identifies the run.
	Run Run `json:"run"`
	// Scenario is the workload.
	Scenario *Scenario `json:"scenario,omitempty"`
	// Results are the measurements.
	Results Results `json:"results"`
}

// Run identifies the run.
type Run struct {
	// UID is unique to the report (from the result's bytes).
	UID string `json:"uid"`
	// EID is the experiment's id (its scenario hash).
	EID string `json:"eid,omitempty"`
	// Time is when the run happened.
	Time *RunTime `json:"time,omitempty"`
	// Description is the scenario's name.
	Description string `json:"description,omitempty"`
	// Keywords hold the result's label.
	Keywords []string `json:"keywords,omitempty"`
}

// RunTime is when the run happened.
type RunTime struct {
	// Start and End are RFC 3339 times; Duration an ISO 8601 duration.
	Start    string `json:"start,omitempty"`
	End      string `json:"end,omitempty"`
	Duration string `json:"duration,omitempty"`
}

// Scenario holds the workload.
type Scenario struct {
	// Load is the workload generator's configuration.
	Load Load `json:"load"`
}

// Load is the workload generator's configuration.
type Load struct {
	// Metadata identifies the configuration.
	Metadata LoadMetadata `json:"metadata"`
	// Standardized is the workload in the report's terms.
	Standardized LoadStandardized `json:"standardized"`
	// Native is the workload in vbench's terms.
	Native LoadNative `json:"native"`
}

// LoadMetadata identifies the workload configuration.
type LoadMetadata struct {
	// SchemaVersion is the workload description's version.
	SchemaVersion string `json:"schema_version"`
	// CfgID is the scenario hash.
	CfgID string `json:"cfg_id,omitempty"`
	// Description describes the workload.
	Description string `json:"description,omitempty"`
}

// LoadStandardized is the workload in the report's own terms.
type LoadStandardized struct {
	// Tool and ToolVersion name the load generator: vbench.
	Tool        string `json:"tool"`
	ToolVersion string `json:"tool_version"`
	// Parallelism is the number of load generators (1).
	Parallelism int `json:"parallelism"`
	// Source says how prompts are made: random or sampled.
	Source string `json:"source"`
	// Stage is the workload stage (0).
	Stage int `json:"stage"`
	// InputSeqLen and OutputSeqLen are the lengths (the output's when held fixed).
	InputSeqLen  SequenceLength  `json:"input_seq_len"`
	OutputSeqLen *SequenceLength `json:"output_seq_len,omitempty"`
	// RateQPS is the request rate (none for inf).
	RateQPS *float64 `json:"rate_qps,omitempty"`
	// Concurrency is the concurrency limit.
	Concurrency *int `json:"concurrency,omitempty"`
}

// SequenceLength is a length and its distribution.
type SequenceLength struct {
	// Distribution is fixed or other; Value the length.
	Distribution string  `json:"distribution"`
	Value        float64 `json:"value"`
}

// LoadNative is the workload in vbench's own terms: the scenario.
type LoadNative struct {
	// Config is the redacted scenario.
	Config json.RawMessage `json:"config,omitempty"`
}

// Results are the run's results.
type Results struct {
	// RequestPerformance are the request-level figures.
	RequestPerformance RequestPerformance `json:"request_performance"`
}

// RequestPerformance holds the aggregate request figures.
type RequestPerformance struct {
	// Aggregate are the whole run's figures.
	Aggregate Aggregate `json:"aggregate"`
}

// Aggregate are the figures over the whole run.
type Aggregate struct {
	// Requests, Latency and Throughput group the figures.
	Requests   Requests   `json:"requests"`
	Latency    Latency    `json:"latency"`
	Throughput Throughput `json:"throughput"`
}

// Requests counts the requests and their lengths.
type Requests struct {
	// Total, Failures and Incomplete count the requests (planned, failed, never finished).
	Total      int  `json:"total"`
	Failures   int  `json:"failures"`
	Incomplete *int `json:"incomplete,omitempty"`
	// InputLength and OutputLength are the mean lengths.
	InputLength  *Statistics `json:"input_length,omitempty"`
	OutputLength *Statistics `json:"output_length,omitempty"`
}

// Latency holds the latency statistics.
type Latency struct {
	// TimeToFirstToken, TimePerOutputToken, InterTokenLatency and RequestLatency are vLLM's TTFT, TPOT, ITL and E2EL.
	TimeToFirstToken   *Statistics `json:"time_to_first_token,omitempty"`
	TimePerOutputToken *Statistics `json:"time_per_output_token,omitempty"`
	InterTokenLatency  *Statistics `json:"inter_token_latency,omitempty"`
	RequestLatency     *Statistics `json:"request_latency,omitempty"`
}

// Throughput holds the rates.
type Throughput struct {
	// InputTokenRate, OutputTokenRate, TotalTokenRate and RequestRate are the throughputs.
	InputTokenRate  *Statistics `json:"input_token_rate,omitempty"`
	OutputTokenRate *Statistics `json:"output_token_rate,omitempty"`
	TotalTokenRate  *Statistics `json:"total_token_rate,omitempty"`
	RequestRate     *Statistics `json:"request_rate,omitempty"`
}

// Statistics is a metric's statistics; Mean is required.
type Statistics struct {
	// Units are the statistics' unit.
	Units string `json:"units"`
	// Mean is required; the rest are set when the result has them.
	Mean   float64  `json:"mean"`
	Stddev *float64 `json:"stddev,omitempty"`
	P0p1   *float64 `json:"p0p1,omitempty"`
	P1     *float64 `json:"p1,omitempty"`
	P5     *float64 `json:"p5,omitempty"`
	P10    *float64 `json:"p10,omitempty"`
	P25    *float64 `json:"p25,omitempty"`
	P50    *float64 `json:"p50,omitempty"`
	P75    *float64 `json:"p75,omitempty"`
	P90    *float64 `json:"p90,omitempty"`
	P95    *float64 `json:"p95,omitempty"`
	P99    *float64 `json:"p99,omitempty"`
	P99p9  *float64 `json:"p99p9,omitempty"`
}

// Input is what a report is made of.
type Input struct {
	// Result is the vllm bench serve result JSON the run wrote.
	Result []byte
	// Scenario is the run's redacted scenario, as JSON.
	Scenario json.RawMessage
	// ScenarioHash and ExperimentHash identify the run's configuration
	// and its experiment ("" for a single run).
	ScenarioHash, ExperimentHash string
	// Name is the scenario's name; Label the result's label.
	Name, Label string
	// ToolVersion is vbench's version.
	ToolVersion string
	// Source says how prompts are made: "random" or "sampled".
	Source string
	// FixedOutputLen is the output length every request is held to
	// (ignore_eos with a fixed length), 0 when lengths vary.
	FixedOutputLen int
	// FixedInputLen is the prompt length every request has, 0 when
	// lengths vary.
	FixedInputLen int
	// Start is when the timed run started.
	Start time.Time
}

// Build makes the report of one run.
func Build(in Input) (*Report, error) {
	v, err := py.Loads(in.Result)
	if err != nil {
		return nil, fmt.Errorf("reading the result: %w", err)
	}
	res, ok := v.(*py.Object)
	if !ok {
		return nil, fmt.Errorf("the result is not a JSON object")
	}
	num := func(k string) (float64, bool) {
		x, ok := res.Get(k)
		if !ok {
			return 0, false
		}
		switch n := x.(type) {
		case int64:
			return float64(n), true
		case float64:
			return n, !math.IsNaN(n) && !math.IsInf(n, 0)
		}
		return 0, false
	}
	get := func(k string) float64 { x, _ := num(k); return x }
	sum := sha256.Sum256(in.Result)
	r := &Report{Version: Version, Run: Run{UID: uuidOf(sum[:16]), EID: in.ExperimentHash, Description: in.Name}}
	if in.Label != "" {
		r.Run.Keywords = []string{in.Label}
	}
	if d, ok := num("duration"); ok && !in.Start.IsZero() {
		end := in.Start.Add(time.Duration(d * float64(time.Second)))
		r.Run.Time = &RunTime{Start: in.Start.UTC().Format(time.RFC3339Nano), End: end.UTC().Format(time.RFC3339Nano),
			Duration: "PT" + strconv.FormatFloat(d, 'f', -1, 64) + "S"}
	}
	completed, failed := get("completed"), get("failed")
	total, _ := num("num_prompts")
	if total < completed+failed {
		total = completed + failed
	}
	req := Requests{Total: int(total), Failures: int(failed)}
	if left := int(total - completed - failed); left > 0 {
		req.Incomplete = &left
	}
	if completed > 0 {
		if x, ok := num("total_input_tokens"); ok {
			req.InputLength = &Statistics{Units: "count", Mean: x / completed}
		}
		if x, ok := num("total_output_tokens"); ok {
			req.OutputLength = &Statistics{Units: "count", Mean: x / completed}
		}
	}
	agg := Aggregate{Requests: req}
	agg.Latency.TimeToFirstToken = latency(num, "ttft", "ms")
	agg.Latency.TimePerOutputToken = latency(num, "tpot", "ms/token")
	agg.Latency.InterTokenLatency = latency(num, "itl", "ms/token")
	agg.Latency.RequestLatency = latency(num, "e2el", "ms")
	rate := func(k, units string) *Statistics {
		if x, ok := num(k); ok {
			return &Statistics{Units: units, Mean: x}
		}
		return nil
	}
	if d, ok := num("duration"); ok && d > 0 {
		if x, ok := num("total_input_tokens"); ok {
			agg.Throughput.InputTokenRate = &Statistics{Units: "tokens/s", Mean: x / d}
		}
	}
	agg.Throughput.OutputTokenRate = rate("output_throughput", "tokens/s")
	agg.Throughput.TotalTokenRate = rate("total_token_throughput", "tokens/s")
	agg.Throughput.RequestRate = rate("request_throughput", "queries/s")
	r.Results.RequestPerformance.Aggregate = agg

	load := Load{
		Metadata: LoadMetadata{SchemaVersion: "0.0.1", CfgID: in.ScenarioHash},
		Standardized: LoadStandardized{Tool: "vbench", ToolVersion: in.ToolVersion, Parallelism: 1, Source: in.Source,
			InputSeqLen: SequenceLength{Distribution: "other", Value: mean(req.InputLength)}},
		Native: LoadNative{Config: in.Scenario},
	}
	if in.FixedInputLen > 0 {
		load.Standardized.InputSeqLen = SequenceLength{Distribution: "fixed", Value: float64(in.FixedInputLen)}
	}
	if in.FixedOutputLen > 0 {
		load.Standardized.OutputSeqLen = &SequenceLength{Distribution: "fixed", Value: float64(in.FixedOutputLen)}
	}
	if x, ok := num("request_rate"); ok && x > 0 { // "inf" is a string
		load.Standardized.RateQPS = &x
	}
	if x, ok := num("max_concurrency"); ok && x >= 1 {
		c := int(x)
		load.Standardized.Concurrency = &c
	}
	r.Scenario = &Scenario{Load: load}
	return r, nil
}

// mean is a statistic's mean, 0 without one.
func mean(s *Statistics) float64 {
	if s == nil {
		return 0
	}
	return s.Mean
}

// latency maps vllm bench serve's statistics of metric m (mean_m_ms,
// std_m_ms, median_m_ms and the pN_m_ms percentiles) to Statistics, or
// nil when the result has no mean for it.
func latency(num func(string) (float64, bool), m, units string) *Statistics {
	mean, ok := num("mean_" + m + "_ms")
	if !ok {
		return nil
	}
	s := &Statistics{Units: units, Mean: mean}
	opt := func(k string) *float64 {
		if x, ok := num(k); ok {
			return &x
		}
		return nil
	}
	s.Stddev = opt("std_" + m + "_ms")
	s.P50 = opt("median_" + m + "_ms")
	for _, p := range []struct {
		name string
		dst  **float64
	}{{"0.1", &s.P0p1}, {"1", &s.P1}, {"5", &s.P5}, {"10", &s.P10}, {"25", &s.P25}, {"50", &s.P50},
		{"75", &s.P75}, {"90", &s.P90}, {"95", &s.P95}, {"99", &s.P99}, {"99.9", &s.P99p9}} {
		if x := opt("p" + p.name + "_" + m + "_ms"); x != nil {
			*p.dst = x
		}
	}
	return s
}

// uuidOf formats 16 bytes as a version-4-shaped UUID, so that a report's
// uid is unique to its result and the same each time it is made.
func uuidOf(b []byte) string {
	u := make([]byte, 16)
	copy(u, b)
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	h := hex.EncodeToString(u)
	return strings.Join([]string{h[:8], h[8:12], h[12:16], h[16:20], h[20:]}, "-")
}
