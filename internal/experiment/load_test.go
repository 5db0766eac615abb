package experiment

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/metrics"
	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/report"
	vstats "github.com/vbench/vbench/internal/stats"
)

// vLLM's own result file: the summary values are read as written, and the
// per-request arrays of --save-detailed give samples whose statistics are
// exactly the reported ones.
func TestLoadVLLMResult(t *testing.T) {
	res, err := LoadResult(filepath.Join("testdata", "random-detailed.json"), true)
	if err != nil {
		t.Fatal(err)
	}
	if res.Values["completed"] != 50 || res.Values["mean_ttft_ms"] != 789.6798483799876 || res.Label != "openai" ||
		res.Experiment != nil || res.ScenarioHash != "" {
		t.Errorf("result %+v", res)
	}
	if res.Keys[0] != "num_prompts" || res.Keys[1] != "burstiness" {
		t.Errorf("numeric keys start %q", res.Keys[:2])
	}
	flat := func(units [][]float64) []float64 {
		var out []float64
		for _, u := range units {
			out = append(out, u...)
		}
		return out
	}
	tests := []struct {
		metric string
		st     vstats.Statistic
		key    string
	}{
		{"ttft", vstats.Statistic{Kind: vstats.StatMedian}, "median_ttft_ms"},
		{"ttft", vstats.Statistic{Kind: vstats.StatPercentile, P: 99}, "p99_ttft_ms"},
		{"tpot", vstats.Statistic{Kind: vstats.StatPercentile, P: 99}, "p99_tpot_ms"},
		{"itl", vstats.Statistic{Kind: vstats.StatMedian}, "median_itl_ms"},
		{"itl", vstats.Statistic{Kind: vstats.StatPercentile, P: 99}, "p99_itl_ms"},
	}
	for _, tt := range tests {
		got := tt.st.Of(flat(res.Samples[tt.metric])) * 1000
		// TPOT comes from latencies rebuilt as TTFT + Σ ITL (this client
		// saved no latencies, and read its clock once more for them), so
		// it agrees to well under a microsecond per request only.
		if want := res.Values[tt.key]; got != want && (tt.metric != "tpot" || math.Abs(got-want) > 1e-5*want) {
			t.Errorf("%s of the %s samples = %.17g, result says %.17g", tt.st, tt.metric, got, want)
		}
	}
	if got, want := metrics.Mean(flat(res.Samples["ttft"]))*1000, res.Values["mean_ttft_ms"]; got != want {
		t.Errorf("mean ttft %v, result %v", got, want)
	}
	if len(res.Samples["ttft"]) != 50 || len(res.Samples["e2el"]) != 50 {
		t.Errorf("%d ttft and %d e2el samples, want 50", len(res.Samples["ttft"]), len(res.Samples["e2el"]))
	}
	// Σ E2EL / duration: the mean number of requests in flight.
	total := 0.0
	for _, u := range res.Samples["e2el"] {
		total += u[0]
	}
	if !nearRel(res.MeanConcurrency, total/res.Values["duration"]) || res.MeanConcurrency < 1 {
		t.Errorf("mean concurrency %v", res.MeanConcurrency)
	}

	// Without --save-detailed this client version kept no arrays.
	basic, err := LoadResult(filepath.Join("testdata", "random-basic.json"), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(basic.Samples["ttft"]) != 0 {
		t.Errorf("samples from a result without arrays: %d", len(basic.Samples["ttft"]))
	}
	if d := res.Workload.Differences(basic.Workload); len(d) != 0 {
		t.Errorf("the same workload differs: %q", d)
	}
}

func nearRel(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Abs(b) }

func TestLoadResultErrors(t *testing.T) {
	dir := t.TempDir()
	detailed, err := os.ReadFile(filepath.Join("testdata", "random-detailed.json"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"appended.json": string(detailed) + "\n" + string(detailed),
		"other.json":    `{"name": "not a result"}`,
		"list.json":     `[1, 2]`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := LoadResult(filepath.Join(dir, "appended.json"), false); err == nil || !strings.Contains(err.Error(), "holds several results") {
		t.Errorf("appended: %v", err)
	}
	for _, name := range []string{"other.json", "list.json"} {
		if _, err := LoadResult(filepath.Join(dir, name), false); !errors.Is(err, ErrNotResult) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := LoadResult(filepath.Join(dir, "missing.json"), false); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

func TestSamplesFromRecords(t *testing.T) {
	ms := time.Millisecond
	recs := []*record.Record{
		// Start 1 ms; chunks at 21, 23, 26 ms: TTFT 20 ms, ITLs 2 and 3 ms,
		// E2EL 25 ms, 3 tokens: TPOT (25 − 20)/2 = 2.5 ms; queued 1 ms.
		{Index: 0, Released: 0, Start: 1 * ms, Chunks: []time.Duration{21 * ms, 23 * ms, 26 * ms}, End: 26 * ms, OutputTokens: 3, Success: true},
		// A failure is no sample.
		{Index: 1, Start: 2 * ms, Error: "boom"},
		// One token: no ITL, no TPOT.
		{Index: 2, Start: 0, Chunks: []time.Duration{10 * ms}, End: 10 * ms, OutputTokens: 1, Success: true},
	}
	s := samplesFromRecords(recs, nil)
	check := func(metric string, want [][]float64) {
		t.Helper()
		got := s[metric]
		if len(got) != len(want) {
			t.Fatalf("%s: %v, want %v", metric, got, want)
		}
		for i := range want {
			if len(got[i]) != len(want[i]) {
				t.Fatalf("%s unit %d: %v, want %v", metric, i, got[i], want[i])
			}
			for j := range want[i] {
				if math.Abs(got[i][j]-want[i][j]) > 1e-15 {
					t.Errorf("%s[%d][%d] = %v, want %v", metric, i, j, got[i][j], want[i][j])
				}
			}
		}
	}
	check("ttft", [][]float64{{0.020}, {0.010}})
	check("e2el", [][]float64{{0.025}, {0.010}})
	check("itl", [][]float64{{0.002, 0.003}, {}})
	check("tpot", [][]float64{{0.0025}})
	check("client_queue_time", [][]float64{{0.001}, {0}})
	check("e2el_including_client_queue", [][]float64{{0.026}, {0.010}})

	// Without the server's token count, output_lens supplies it; without
	// either, TPOT is unknown rather than wrong.
	recs[0].OutputTokens = 0
	if s := samplesFromRecords(recs, []int{6, 0, 1}); len(s["tpot"]) != 1 || math.Abs(s["tpot"][0][0]-0.001) > 1e-15 {
		t.Errorf("tpot from output_lens: %v", s["tpot"])
	}
	if s := samplesFromRecords(recs, nil); s["tpot"] != nil {
		t.Errorf("tpot without token counts: %v", s["tpot"])
	}
}

func TestWorkloadDifferences(t *testing.T) {
	base := Workload{Fields: [][2]string{{"num_prompts", "50"}, {"request_rate", `"inf"`}, {"max_concurrency", "8"},
		{"dataset", `{"random": {"input_len": 64}}`}}, MeanInputLen: 64}
	tests := []struct {
		name  string
		other Workload
		want  []string
	}{
		{"same", base, nil},
		{"concurrency", Workload{Fields: [][2]string{{"num_prompts", "50"}, {"request_rate", `"inf"`}, {"max_concurrency", "16"}}, MeanInputLen: 64},
			[]string{"max_concurrency: 8 vs 16"}},
		{"ramp-up only on one side", Workload{Fields: append(base.Fields[:3:3], [2]string{"ramp_up_strategy", `"linear"`}), MeanInputLen: 64},
			[]string{`ramp_up_strategy: none vs "linear"`}},
		{"dataset", Workload{Fields: append(base.Fields[:3:3], [2]string{"dataset", `{"random": {"input_len": 128}}`}), MeanInputLen: 64},
			[]string{`dataset: {"random": {"input_len": 64}} vs {"random": {"input_len": 128}}`}},
		{"lengths within 2 %", Workload{Fields: base.Fields, MeanInputLen: 65}, nil},
		{"lengths", Workload{Fields: base.Fields, MeanInputLen: 128}, []string{"mean input length: 64.0 vs 128.0 tokens"}},
	}
	for _, tt := range tests {
		got := base.Differences(tt.other)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestNaturalCompare(t *testing.T) {
	tests := []struct {
		a, b string
		less bool
	}{
		{"c=2", "c=16", true}, {"c=16", "c=2", false}, {"run=9.json", "run=10.json", true},
		{"a", "b", true}, {"a1b", "a1c", true}, {"x007", "x7", false}, {"x", "x1", true},
	}
	for _, tt := range tests {
		if got := naturalCompare(tt.a, tt.b) < 0; got != tt.less {
			t.Errorf("naturalCompare(%q, %q) < 0 = %v", tt.a, tt.b, got)
		}
	}
}

// ReportDir skips a file holding several results, with a warning, and
// summarises the rest.
func TestReportDirSkipsAppended(t *testing.T) {
	dir := t.TempDir()
	detailed, err := os.ReadFile(filepath.Join("testdata", "random-detailed.json"))
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"one.json":      string(detailed),
		"appended.json": string(detailed) + "\n" + string(detailed),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := LoadResult(filepath.Join(dir, "appended.json"), false); !errors.Is(err, report.ErrTrailingData) {
		t.Errorf("appended: %v, want ErrTrailingData", err)
	}
	var warn strings.Builder
	sum, err := ReportDir(dir, ReportOptions{Warnings: &warn})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Rows) != 1 {
		t.Errorf("%d rows, want 1", len(sum.Rows))
	}
	if !strings.Contains(warn.String(), "warning: skipping ") || !strings.Contains(warn.String(), "appended.json holds several results") {
		t.Errorf("warnings: %q", warn.String())
	}
}
