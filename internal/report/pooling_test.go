package report

import (
	"bytes"
	"testing"

	"github.com/vbench/vbench/internal/metrics"
)

// A pooling run's summary, console block and result JSON are vLLM's
// pooling ones (calculate_metrics_for_embeddings and benchmark()'s pooling
// branch): the input throughput line in place of the generation lines, no
// failed key, total_input_sequences, and only the E2EL and client-queue
// statistics. testdata/pooling_golden.py computed both files with numpy
// from the same five requests.
func TestPoolingGolden(t *testing.T) {
	outs := []metrics.Outcome{
		{Success: true, Latency: 0.0125, PromptLen: 40, InputSequences: 4, TTFT: 0.0125},
		{Success: true, Latency: 0.0375, PromptLen: 35, InputSequences: 4, QueueTime: 0.0015, TTFT: 0.0375},
		{Success: false, InputSequences: 1, QueueTime: 0.002, Error: "Internal Server Error"},
		{Success: true, Latency: 0.021, PromptLen: 44, InputSequences: 4, TTFT: 0.021},
		{Success: true, Latency: 0.1003, PromptLen: 12, InputSequences: 1, QueueTime: 0.0101, TTFT: 0.1003},
	}
	s := metrics.ComputeOutcomes(outs, 0.4321, metrics.Options{
		Pooling: true, CountTokens: func(string) int { return 0 },
		// ttft, tpot and itl do not apply to pooling, selected or not.
		PercentileMetrics: []string{metrics.TTFT, metrics.TPOT, metrics.ITL, metrics.E2EL, metrics.ClientQueueTime, metrics.E2ELIncludingClientQueue},
		Percentiles:       []float64{50, 99}, MaxConcurrencySet: true, RequestRateFinite: true,
	})
	two := 2
	var con bytes.Buffer
	if err := WriteConsole(&con, ConsoleInput{Summary: s, MaxConcurrency: &two, RequestRate: 10}); err != nil {
		t.Fatal(err)
	}
	if want := readHandWritten(t, "pooling-console.txt"); !bytes.Equal(con.Bytes(), want) {
		t.Errorf("console differs at byte %d\ngot:\n%s\nwant:\n%s", firstDiff(con.Bytes(), want), con.Bytes(), want)
	}
	got, err := MarshalResult(ResultInput{Date: "20261204-061500", Backend: "openai-embeddings", ModelID: "org/embed", TokenizerID: "org/embed",
		NumPrompts: 5, RequestRate: 10, Burstiness: 1, MaxConcurrency: &two, Summary: s, SaveDetailed: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := readHandWritten(t, "pooling-result.json"); !bytes.Equal(got, want) {
		i := firstDiff(got, want)
		t.Errorf("result differs at byte %d\n got %s\nwant %s", i, got[i:], want[i:])
	}
}
