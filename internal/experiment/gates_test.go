package experiment

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/scenario"
)

// TestCheckMetricsPlacesGates checks that a gate on a metric the runs will
// not produce fails the load at the metric's place in the file, and that
// gates on produced metrics pass.
func TestCheckMetricsPlacesGates(t *testing.T) {
	tests := []struct {
		name, src, yaml, want string
	}{
		{name: "server metric in CUE", src: planBase + `compare: {
	variants: {a: {}, b: {}}
	gates: [
		{metric: "output_throughput", max_decrease: "3%"},
		{metric:   "spec_decode_acceptance_rate", max_decrease: "5%"},
	]
}
`, want: "test.cue:11:14: compare.gates[1].metric: spec_decode_acceptance_rate comes from the server /metrics, which this scenario does not read; metrics it can gate on: duration, "},
		{name: "typo in YAML", yaml: `target: {simulator: {ttft_ms: 5, itl_ms: 1}, model: vbench-sim}
tokenizer: {name: o200k_base}
compare:
  variants: {a: {}, b: {}}
  gates:
    - metric: p99_ttfx_ms
      max_increase: 5%
`, want: `test.yaml:6:15: compare.gates[0].metric: "p99_ttfx_ms" is not a metric (did you mean p99_ttft_ms?); metrics it can gate on: `},
		{name: "produced metrics", src: planBase + `compare: {variants: {a: {}, b: {}}, gates: [{metric: "p99_ttft_ms", max_increase: "5%"}, {metric: "client_cpu_fraction", max_increase: "50%"}]}`},
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
