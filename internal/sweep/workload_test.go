package sweep

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/vbench/vbench/internal/py"
)

// between agrees with numpy.linspace and Python's round on
// testdata/linspace_golden.json (made by testdata/gen_linspace.py).
func TestBetweenGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/linspace_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Lo, Hi float64
		N      int
		Levels []int64
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if got := between(c.Lo, c.Hi, c.N); !slices.Equal(got, c.Levels) && (len(got) != 0 || len(c.Levels) != 0) {
			t.Errorf("between(%v, %v, %d) = %v, numpy %v", c.Lo, c.Hi, c.N, got, c.Levels)
		}
	}
	if got := between(math.NaN(), 5, 4); got != nil {
		t.Errorf("a NaN end gave %v", got)
	}
}

// The dataset size is the combination's num_prompts, else the command's
// --num-prompts, else vLLM's default; the estimate is the mean request
// throughput, times the mean E2EL for concurrency.
func TestWorkloadEstimates(t *testing.T) {
	if n := datasetSize(obj(t, `{"num_prompts": 40}`), []string{"--num-prompts", "7"}); n != 40 {
		t.Errorf("from the combination: %d", n)
	}
	if n := datasetSize(obj(t, `{}`), []string{"vllm", "bench", "serve", "--num-prompts=7"}); n != 7 {
		t.Errorf("from the command: %d", n)
	}
	if n := datasetSize(obj(t, `{}`), []string{"vllm", "bench", "serve"}); n != 1000 {
		t.Errorf("default: %d", n)
	}
	runs := []*py.Object{obj(t, `{"request_throughput": 10.0, "mean_e2el_ms": 200.0}`), obj(t, `{"request_throughput": 20.0, "mean_e2el_ms": 400.0}`)}
	if got := estimate(runs, "request_rate"); got != 15 {
		t.Errorf("request rate estimate %v", got)
	}
	if got := estimate(runs, "max_concurrency"); math.Abs(got-5) > 1e-12 {
		t.Errorf("concurrency estimate %v, want (2 + 8) / 2", got)
	}
	if got := estimate(nil, "request_rate"); !math.IsNaN(got) {
		t.Errorf("no runs: %v", got)
	}
}
