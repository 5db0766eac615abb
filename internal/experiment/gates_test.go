package experiment

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/metrics"
	"github.com/vbench/vbench/internal/pipeline"
	"github.com/vbench/vbench/internal/run"
	"github.com/vbench/vbench/internal/scenario"
)

// TestCheckMetricsPlacesGates checks that a gate on a metric the runs will
// not produce fails the load at the metric's place in the file, and that
// gates on produced metrics pass.
func TestCheckMetricsPlacesGates(t *testing.T) {
	tests := []struct {
		name, src, yaml, want string
	}{
		{name: "probe metric in CUE", src: planBase + `compare: {
	variants: {a: {}, b: {}}
	gates: [
		{metric: "output_throughput", max_decrease: "3%"},
		{metric:   "probe_median_e2el_ms", max_increase: "5%"},
	]
}
`, want: "test.cue:11:14: compare.gates[1].metric: probe_median_e2el_ms needs "},
		{name: "typo in YAML", yaml: `target: {simulator: {ttft_ms: 5, itl_ms: 1}, model: vbench-sim}
tokenizer: {name: o200k_base}
compare:
  variants: {a: {}, b: {}}
  gates:
    - metric: p99_ttfx_ms
      max_increase: 5%
`, want: `test.yaml:6:15: compare.gates[0].metric: "p99_ttfx_ms" is not a metric (did you mean p99_ttft_ms?); the nearest of the `},
		{name: "produced metrics", src: planBase + `compare: {variants: {a: {}, b: {}}, gates: [{metric: "p99_ttft_ms", max_increase: "5%"}, {metric: "client_cpu_fraction", max_increase: "50%"}, {metric: "spec_decode_acceptance_rate", max_decrease: "5%"}]}`},
		{name: "no gates", src: planBase + `sweep: axes: "load.max_concurrency": [1, 2]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, src := "test.cue", tt.src
			if tt.yaml != "" {
				name, src = "test.yaml", tt.yaml
			}
			_, err := scenario.LoadBytes(name, []byte(src), scenario.Options{Check: CheckMetrics, Dir: t.TempDir()})
			if tt.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var e *scenario.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want a *scenario.Error", err)
			}
			if len(e.Problems) != 1 || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("err =\n%v\nwant prefix\n%s", err, tt.want)
			}
		})
	}
}

// TestLoadResultHealthMetrics checks that the client-health metrics of the
// table are read from the "vbench" object under their table keys, and
// only the top-level numbers are Keys.
func TestLoadResultHealthMetrics(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	data := `{"duration": 2.0, "completed": 4, "vbench": {"client_health": {"send_lag_ms": {"p50": 0.1, "p99": 0.5, "max": 3}, "cpu_fraction": 0.25, "gc_pause_ms": 1.5}}}`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := LoadResult(path, false)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"duration": 2, "completed": 4, "client_send_lag_p50_ms": 0.1, "client_send_lag_p99_ms": 0.5,
		"client_send_lag_max_ms": 3, "client_cpu_fraction": 0.25, "client_gc_pause_ms": 1.5}
	for k, v := range want {
		if got, ok := res.Values[k]; !ok || got != v {
			t.Errorf("Values[%s] = %v, %v; want %v", k, got, ok, v)
		}
	}
	if len(res.Values) != len(want) || strings.Join(res.Keys, ",") != "duration,completed" {
		t.Errorf("Values %v, Keys %q", res.Values, res.Keys)
	}
}

// TestGateOnNonHeadlineMetric checks that a gate on a metric the summaries
// do not show (a total, a client-health figure) is still compared and
// checked, not failed as missing, and that the summary's columns stay the
// headline metrics.
func TestGateOnNonHeadlineMetric(t *testing.T) {
	gates := []scenario.Gate{{Metric: "total_input_tokens", MaxDecrease: "1%"}, {Metric: "client_send_lag_p99_ms", MaxIncrease: "10%"}}
	var results []*Result
	for rep := range 3 {
		results = append(results,
			fakeRun(0, "a", rep, map[string]float64{"completed": 10, "total_input_tokens": 100, "client_send_lag_p99_ms": 1 + 0.01*float64(rep)}, nil),
			fakeRun(0, "b", rep, map[string]float64{"completed": 10, "total_input_tokens": 100, "client_send_lag_p99_ms": 2 + 0.01*float64(rep)}, nil))
	}
	s := summarize(abSpec(gates...), "", results, true, func(p string) string { return p })
	if strings.Join(s.Metrics, ",") != "completed" {
		t.Errorf("metrics %q, want only the headline ones", s.Metrics)
	}
	if len(s.Gates) != 2 {
		t.Fatalf("gates %+v", s.Gates)
	}
	if g := s.Gates[0]; g.Failed || g.Reason != "" || g.Change != 0 {
		t.Errorf("total_input_tokens gate %+v", g)
	}
	if g := s.Gates[1]; !g.Failed || g.Reason != "" || !(g.Change > 0.9) {
		t.Errorf("send lag gate %+v, want a measured failure", g)
	}
	if c := findComparison(t, s, "client_send_lag_p99_ms"); c.Verdict != "worse" {
		t.Errorf("send lag comparison %+v, want worse (lower is better)", c)
	}
}

// TestHealthMetricsMatchResult keeps the metric table's client-health
// paths and the "client_health" object vbench writes in step: every
// health metric of the table is read back from a written one, with its
// value.
func TestHealthMetricsMatchResult(t *testing.T) {
	h := run.Health{Requests: 10, SendLagP50: 100 * time.Microsecond, SendLagP99: 2 * time.Millisecond, SendLagMax: 5 * time.Millisecond,
		CPUFraction: 0.125, GC: run.GCStats{Cycles: 3, Pause: 1500 * time.Microsecond}, HostBusy: -1, Procs: 2}
	data, err := json.Marshal(map[string]any{"duration": 1, "completed": 10, "vbench": map[string]any{"client_health": pipeline.ClientHealthObject(h)}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := LoadResult(path, false)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{metrics.KeyClientSendLagP50: 0.1, metrics.KeyClientSendLagP99: 2, metrics.KeyClientSendLagMax: 5,
		metrics.KeyClientCPUFraction: 0.125, metrics.KeyClientGCPause: 1.5}
	n := 0
	for _, d := range metrics.Defs() {
		if d.Source != metrics.SourceHealth {
			continue
		}
		n++
		if got, ok := res.Values[d.Key]; !ok || math.Abs(got-want[d.Key]) > 1e-12 {
			t.Errorf("%s at %q: %v, %v; want %v", d.Key, d.Path, got, ok, want[d.Key])
		}
	}
	if n != len(want) {
		t.Errorf("%d health metrics in the table, want %d", n, len(want))
	}
}
