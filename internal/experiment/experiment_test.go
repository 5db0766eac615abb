package experiment

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/pipeline"
	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/scenario"
)

func testEnv(stdout, stderr *bytes.Buffer) pipeline.Env {
	return pipeline.Env{Stdout: stdout, Stderr: stderr, Getenv: func(string) string { return "" }, Now: time.Now}
}

// A sweep × compare × repeat experiment end to end against the simulator,
// then the same summary re-rendered from the saved files, then --resume.
func TestExecuteReportResume(t *testing.T) {
	dir := t.TempDir()
	sc := loadScenario(t, `
name: "e2e"
target: {simulator: {ttft_ms: 2, itl_ms: 1}, model: "vbench-sim"}
tokenizer: name: "o200k_base"
dataset: random: {input_len: 16, output_len: 4}
load: num_prompts: 4
output: result_dir: "`+dir+`"
sweep: axes: "load.max_concurrency": [1, 4]
repeat: count: 2
compare: {
	// The TTFT interval is d̄ ± 12.7·s_d/√2 (paired t, 2 repeats): it
	// excludes 0, and the gate fails, while the repeats' differences d_i of
	// the mean TTFT differ by less than d̄/6.35. A stall slows every request
	// in flight, all four of a run at max_concurrency=4, so the 1 s gap
	// survives a stall of about 150 ms in any one run (600 ms in a single
	// request at max_concurrency=1); 300 ms survived only about 45 ms.
	variants: {a: {}, b: target: simulator: ttft_ms: 1000}
	gates: [{metric: "mean_ttft_ms", max_increase: "10%"}, {metric: "completed", max_decrease: "0%"}]
}
`)
	plan, err := Expand(sc)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	sum, err := Execute(context.Background(), plan, testEnv(&stdout, &stderr), Options{})
	if !errors.Is(err, ErrGateFailed) || !strings.Contains(err.Error(), "2 of 4 gate checks failed:\n  FAIL mean_ttft_ms max_increase 10%: b vs a at max_concurrency=1 +") {
		t.Fatalf("err = %v, want the TTFT gate to fail", err)
	}
	out := stdout.String()
	for _, want := range []string{
		"Experiment run 1 of 8: max_concurrency=1, variant a, repeat 0\n",
		"Experiment run 7 of 8: max_concurrency=4, variant b, repeat 1\n",
		"Experiment run 8 of 8: max_concurrency=4, variant a, repeat 1\n",
		"=============== Experiment Summary ===============\n",
		" Comparison with a ",
		"  PASS completed max_decrease 0%: b vs a at max_concurrency=4 +0.0% [+0.0%, +0.0%]\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	for _, f := range []string{"a-max_concurrency=1-run=0.json", "b-max_concurrency=4-run=1.json", "b-max_concurrency=4-run=1.records.jsonl",
		"summary.csv", "summary.json", "comparison.csv", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if len(sum.Rows) != 4 || sum.Rows[1].Variant != "b" || len(sum.Rows[3].Files) != 2 {
		t.Fatalf("rows %+v", sum.Rows)
	}
	c := sum.Comparisons[0]
	if c.Method != "paired t" || c.Point != "max_concurrency=1" {
		t.Errorf("comparison over repeats %+v", c)
	}
	// Each result says where it belongs.
	res, err := LoadResult(filepath.Join(dir, "b-max_concurrency=4-run=1.json"), false)
	if err != nil {
		t.Fatal(err)
	}
	if e := res.Experiment; e == nil || e.Hash != sc.Hash() || e.Index != 6 || e.Point != 1 || e.Variant != "b" || e.Repeat != 1 ||
		e.Seed != 0x7B1DCDAF || e.Spec == nil || len(e.Spec.Points) != 2 || e.Spec.Baseline != "a" {
		t.Errorf("experiment info %+v", e)
	}

	// vbench report: the same summary from the files alone.
	again, err := ReportDir(dir, ReportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := report.WriteSummaryJSON(&a, sum); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteSummaryJSON(&b, again); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("report differs from the run's summary:\n%s\nvs\n%s", b.String(), a.String())
	}

	// --resume: every run is done, none runs again; the summary is the same.
	stdout.Reset()
	stderr.Reset()
	if _, err := Execute(context.Background(), plan, testEnv(&stdout, &stderr), Options{Resume: true}); !errors.Is(err, ErrGateFailed) {
		t.Fatalf("resume: %v", err)
	}
	if strings.Contains(stdout.String(), "Experiment run") || strings.Count(stderr.String(), "Skipping run") != 8 {
		t.Errorf("resume ran again:\n%s\n%s", stdout.String(), stderr.String())
	}
	// A run whose result is missing or from another scenario runs again.
	if err := os.Remove(filepath.Join(dir, "a-max_concurrency=4-run=1.json")); err != nil {
		t.Fatal(err)
	}
	plan.Runs[0].Scenario.Load.NumPrompts = 5 // as if the scenario had changed
	stdout.Reset()
	if err := writeDryRun(&stdout, plan, true); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(stdout.String(), "\n")
	if want := "e2e: sweep (grid) over load.max_concurrency: 2 points; compare a, b (baseline a); repeat 2 times with a seed derived per repeat; 8 runs, results in " + dir; lines[0] != want {
		t.Errorf("dry run header %q", lines[0])
	}
	for i, suffix := range map[int]string{1: " [result from another scenario, runs again]", 2: " [done, skipped]",
		8: "max_concurrency=4, variant a, repeat 1 (seed 2065550767) -> " + filepath.Join(dir, "a-max_concurrency=4-run=1.json")} {
		if !strings.HasSuffix(lines[i], suffix) {
			t.Errorf("dry run line %d %q, want suffix %q", i, lines[i], suffix)
		}
	}
}

func TestOverallProgressLine(t *testing.T) {
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	now := start
	var b bytes.Buffer
	o := &overall{w: &b, total: 4, start: start, on: true, now: func() time.Time { return now }}
	o.begin(0, "max_concurrency=1")
	now = start.Add(10 * time.Second)
	o.skip()
	o.begin(2, "max_concurrency=16, variant b")
	// One run made in 10 s: the two left (this and the last) take 20 s.
	want := "[experiment] run 1 of 4: max_concurrency=1 [0s<?]\n" +
		"[experiment] run 3 of 4: max_concurrency=16, variant b (1 skipped) [10s<20s]\n"
	if b.String() != want {
		t.Errorf("progress\n%q\nwant\n%q", b.String(), want)
	}
	// Off: not a terminal, or disabled.
	var off bytes.Buffer
	o = newOverall(&off, 2, false)
	o.begin(0, "x")
	if off.Len() != 0 || newOverall(os.Stderr, 2, true).on {
		t.Error("progress drawn where it should be off")
	}
}

// An interrupted run counts its cancelled requests as failed, so its
// completed + failed can reach num_prompts: --resume must still run it again.
func TestRunStateInterrupted(t *testing.T) {
	sc, err := scenario.LoadBytes("test.cue", []byte(`
target: {base_url: "http://127.0.0.1:1", model: "m"}
tokenizer: name: "o200k_base"
dataset: random: {input_len: 8, output_len: 4}
load: num_prompts: 10
`), scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run := &PlannedRun{Scenario: sc, Path: filepath.Join(dir, "r.json")}
	write := func(extra string) {
		t.Helper()
		data := `{"duration": 1.0, "completed": 4, "failed": 6, "vbench": {"scenario_hash": "` + sc.Hash() + `"` + extra + `}}`
		if err := os.WriteFile(run.Path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("")
	if st := runState(run); st != stateDone {
		t.Errorf("finished run: state %q, want %q", st, stateDone)
	}
	write(`, "interrupted": true`)
	if st := runState(run); st != stateIncomplete {
		t.Errorf("interrupted run: state %q, want %q", st, stateIncomplete)
	}
}

// An experiment keeps the summary of each run it made (not its records),
// and summarises from those, reading from their files only the runs
// --resume skipped and, when the comparisons bootstrap over per-request
// samples, the samples: with the files gone, a repeat's summary is the one
// the files gave.
func TestSummarizeFromMemory(t *testing.T) {
	dir := t.TempDir()
	sc := loadScenario(t, `
target: {simulator: {ttft_ms: 2, itl_ms: 1}, model: "vbench-sim"}
tokenizer: name: "o200k_base"
dataset: random: {input_len: 16, output_len: 4}
load: num_prompts: 3
output: {result_dir: "`+dir+`", disable_tqdm: true}
repeat: count: 2
compare: variants: {a: {}, b: load: max_concurrency: 1}
`)
	plan, err := Expand(sc)
	if err != nil {
		t.Fatal(err)
	}
	if needSamples(&plan.Spec) {
		t.Fatal("repeats bootstrap over runs, not requests")
	}
	var stdout, stderr bytes.Buffer
	made := make([]*Result, len(plan.Runs))
	var paths []string
	for i := range plan.Runs {
		out, err := pipeline.RunInExperiment(context.Background(), plan.Runs[i].Scenario, testEnv(&stdout, &stderr), plan.Runs[i].Info.JSON())
		if err != nil {
			t.Fatal(err)
		}
		if made[i], err = resultOf(out, false); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, out.ResultPath, out.RecordsPath)
	}
	fromFiles, err := summarizePlan(plan, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := summarizePlan(plan, nil, nil); err == nil {
		t.Fatal("summarised without the files or the summaries")
	}
	fromMemory, err := summarizePlan(plan, made, nil)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := report.WriteSummaryJSON(&a, fromFiles); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteSummaryJSON(&b, fromMemory); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() || len(fromMemory.Comparisons) == 0 {
		t.Errorf("summary from memory differs from the files':\n%s\nvs\n%s", b.String(), a.String())
	}
}
