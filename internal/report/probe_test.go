package report

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/vbench/vbench/internal/metrics"
)

// readHandWritten reads a testdata file written by hand from vLLM's
// formats (checked by the Python script beside it), never regenerated.
func readHandWritten(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The probe section sits after the throughput lines and before the latency
// sections, its counts as "{:<40} {:<10}" and its latencies as .2f, a
// value wider than 10 columns not cut (testdata/probe-console.txt).
func TestConsoleProbeSection(t *testing.T) {
	two := 2
	lat := func(name string, mean, median, p99 float64) metrics.MetricStats {
		return metrics.MetricStats{Name: name, Mean: mean, Median: median, Percentiles: []metrics.PercentileValue{{P: 99, Value: p99}}}
	}
	in := ConsoleInput{
		Summary: &metrics.Summary{Completed: 40, Duration: 1.2345, TotalInput: 960, TotalOutput: 800, HasTokenizer: true,
			RequestThroughput: 32.4, OutputThroughput: 648, MaxOutputTokensPerS: 700, MaxConcurrentRequests: 2, TotalTokenThroughput: 1425.6,
			Metrics: []metrics.MetricStats{lat(metrics.TTFT, 6.5, 6.25, 9.875), lat(metrics.TPOT, 2, 2, 2.5), lat(metrics.ITL, 2, 1.995, 3)}},
		MaxConcurrency: &two, RequestRate: math.Inf(1),
		Probe: &metrics.ProbeSummary{Completed: 23, Failed: 1, MedianE2ELMs: 5.4321, P99E2ELMs: 12.3456, MaxE2ELMs: 123456789.125},
	}
	var b bytes.Buffer
	if err := WriteConsole(&b, in); err != nil {
		t.Fatal(err)
	}
	want := readHandWritten(t, "probe-console.txt")
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("differs at byte %d\ngot:\n%s\nwant:\n%s", firstDiff(b.Bytes(), want), b.Bytes(), want)
	}
	// Without probes (none enabled, or none succeeded) there is no section.
	in.Probe = nil
	b.Reset()
	if err := WriteConsole(&b, in); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b.Bytes(), []byte("Probe")) {
		t.Errorf("a block without probes has a probe line:\n%s", b.Bytes())
	}
}

// The probe keys follow the body (after rtfx) and precede
// rps_change_events, spec_decode_* and the statistics
// (testdata/probe-result.json).
func TestResultProbeKeys(t *testing.T) {
	two := 2
	in := ResultInput{Date: "20260723-101500", Backend: "openai", ModelID: "org/model", TokenizerID: "org/model", NumPrompts: 2,
		RequestRate: math.Inf(1), Burstiness: 1, MaxConcurrency: &two, RampUp: &RampUp{Strategy: "linear", StartRPS: 1, EndRPS: 4},
		Summary: &metrics.Summary{Duration: 2, Completed: 1, Failed: 1, TotalInput: 8, TotalOutput: 3, RequestThroughput: 0.5,
			OutputThroughput: 1.5, TotalTokenThroughput: 5.5, Latencies: []float64{0.5, 0}, QueueTimes: []float64{0.25, 0},
			MaxOutputTokensPerS: 3, MaxConcurrentRequests: 1,
			Metrics: []metrics.MetricStats{{Name: metrics.E2EL, Mean: 500, Median: 500, Percentiles: []metrics.PercentileValue{{P: 99, Value: 500}}}}},
		Probe:           &metrics.ProbeSummary{Completed: 2, Failed: 1, MedianE2ELMs: 5.25, P99E2ELMs: 7.4475, MaxE2ELMs: 7.5},
		RPSChangeEvents: []RPSChangeEvent{{1, "2026-07-23T10:14:58.000001"}},
		SpecDecode:      &SpecDecodeStats{AcceptanceRate: 50, AcceptanceLength: 1.5, NumDrafts: 2, DraftTokens: 4, AcceptedTokens: 2, PerPositionAcceptanceRates: []float64{0.5}},
	}
	got, err := MarshalResult(in)
	if err != nil {
		t.Fatal(err)
	}
	want := readHandWritten(t, "probe-result.json")
	if !bytes.Equal(got, want) {
		i := firstDiff(got, want)
		t.Errorf("differs at byte %d\n got %s\nwant %s", i, got[i:], want[i:])
	}
}
