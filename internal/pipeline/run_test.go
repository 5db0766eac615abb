package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/sim"
	"github.com/vbench/vbench/internal/tokenizer"
)

// vLLM's result keys (upstream vllm/benchmarks/serve.py, benchmark()'s result dict) for a generation run with the
// default percentile metrics, in order.
var (
	header = []string{"date", "endpoint_type", "backend", "label", "model_id", "tokenizer_id", "num_prompts",
		"request_rate", "burstiness", "max_concurrency"}
	bodyDetailed = []string{"duration", "completed", "failed", "total_input_tokens", "total_output_tokens",
		"request_throughput", "request_goodput", "output_throughput", "total_token_throughput", "input_lens",
		"output_lens", "ttfts", "itls", "latencies", "start_times", "queue_times", "generated_texts", "errors",
		"max_output_tokens_per_s", "max_concurrent_requests", "rtfx"}
	stats = []string{"mean_ttft_ms", "median_ttft_ms", "std_ttft_ms", "p99_ttft_ms", "mean_tpot_ms", "median_tpot_ms",
		"std_tpot_ms", "p99_tpot_ms", "mean_itl_ms", "median_itl_ms", "std_itl_ms", "p99_itl_ms"}
)

func without(keys []string, drop ...string) []string {
	var out []string
	for _, k := range keys {
		if !strings.Contains(" "+strings.Join(drop, " ")+" ", " "+k+" ") {
			out = append(out, k)
		}
	}
	return out
}

func concat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func runScenario(t *testing.T, src string) (*Outcome, string, error) {
	t.Helper()
	dir := t.TempDir()
	sc, err := scenario.LoadBytes("test.cue", []byte(src), scenario.Options{
		Sets: []string{`output.result_dir="` + dir + `"`},
	})
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	out, err := Run(context.Background(), sc, Env{KeepRecords: true, Stdout: &stdout, Stderr: &stderr,
		Getenv: func(string) string { return "" }, Now: time.Now})
	return out, stdout.String(), err
}

// resultKeys reads the keys of a result JSON file in their order.
func resultKeys(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := report.DecodePython(f)
	if err != nil {
		t.Fatal(err)
	}
	return v.(*report.Object).Keys()
}

const base = `
target: {simulator: {ttft_ms: 5, itl_ms: 1}, model: "vbench-sim"}
tokenizer: name: "o200k_base"
dataset: random: {input_len: 24, output_len: 6}
load: {num_prompts: 12, max_concurrency: 4}
output: {save_result: true, result_filename: "r.json"}
`

func TestRunResultKeys(t *testing.T) {
	tests := []struct {
		name  string
		extra string
		want  []string
	}{
		{"default", "", concat(header, without(bodyDetailed, "input_lens", "output_lens", "ttfts", "itls",
			"start_times", "generated_texts", "errors"), stats, []string{"vbench"})},
		{"detailed", "output: save_detailed: true", concat(header, bodyDetailed, stats, []string{"vbench"})},
		{"metadata, label and percentiles", `output: {label: "lbl", metadata: {b: "2", a: "1"}}
metrics: {percentile_metrics: ["ttft", "e2el"], metric_percentiles: [50, 99.9]}`,
			concat(header[:7], []string{"b", "a"}, header[7:],
				without(bodyDetailed, "input_lens", "output_lens", "ttfts", "itls", "start_times", "generated_texts", "errors"),
				[]string{"mean_ttft_ms", "median_ttft_ms", "std_ttft_ms", "p50_ttft_ms", "p99.9_ttft_ms",
					"mean_e2el_ms", "median_e2el_ms", "std_e2el_ms", "p50_e2el_ms", "p99.9_e2el_ms", "vbench"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stdout, err := runScenario(t, base+tt.extra)
			if err != nil {
				t.Fatal(err)
			}
			if got := resultKeys(t, out.ResultPath); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("keys\n got %q\nwant %q", got, tt.want)
			}
			if !strings.Contains(stdout, "============ Serving Benchmark Result ============\nSuccessful requests:                     12        \n") {
				t.Errorf("no result block in\n%s", stdout)
			}
			if out.Summary.Completed != 12 || out.Summary.TotalOutput != 72 {
				t.Errorf("completed %d, output tokens %d", out.Summary.Completed, out.Summary.TotalOutput)
			}
		})
	}
}

func TestRunRecordsAndTrace(t *testing.T) {
	before := time.Now()
	out, _, err := runScenario(t, base)
	after := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out.RecordsPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := record.ReadJSONL(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 12 {
		t.Fatalf("%d records", len(recs))
	}
	for _, r := range recs {
		if !r.Success || len(r.Chunks) != 6 || r.OutputTokens != 6 || !strings.HasPrefix(r.RequestID, "bench-") {
			t.Errorf("record %+v", r)
		}
		if r.Start < r.Released || r.Released < r.Intended || r.Chunks[0] < r.Start+5*time.Millisecond {
			t.Errorf("record %d times out of order: intended %v released %v start %v first %v", r.Index, r.Intended, r.Released, r.Start, r.Chunks[0])
		}
	}
	// The "vbench" object names the scenario, so the run can be traced and re-run.
	b, err := os.ReadFile(out.ResultPath)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		VBench struct {
			ScenarioHash string          `json:"scenario_hash"`
			Scenario     json.RawMessage `json:"scenario"`
			Records      string          `json:"records"`
		} `json:"vbench"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	again, err := scenario.LoadBytes("again.json", res.VBench.Scenario, scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Hash() != res.VBench.ScenarioHash {
		t.Errorf("saved scenario hashes to %s, result says %s", again.Hash(), res.VBench.ScenarioHash)
	}
	if res.VBench.Records != filepath.Base(out.RecordsPath) {
		t.Errorf("records %q", res.VBench.Records)
	}
	// The records file starts with its header: the run's scenario, shard
	// and start, which dates every record.
	rf, err := record.ReadFile(out.RecordsPath)
	if err != nil {
		t.Fatal(err)
	}
	h := rf.Header
	if h == nil {
		t.Fatal("no header line")
	}
	if h.ScenarioHash != res.VBench.ScenarioHash || h.Shard != "0/1" || h.Version == "" || h.Format != record.Format {
		t.Errorf("header %+v", h)
	}
	if hsc, err := scenario.LoadBytes("header.json", h.Scenario, scenario.Options{}); err != nil || hsc.Hash() != h.ScenarioHash {
		t.Errorf("header scenario: %v", err)
	}
	if st := h.StartTime(); st.Before(before) || st.After(after) {
		t.Errorf("header start %v (%s)", st, h.Start)
	}
}

func TestRunFailuresAreCounted(t *testing.T) {
	// Against a server that fails everything every request fails: the
	// failures are counted and printed, the result is still written, and
	// Run says so.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "out of order", http.StatusInternalServerError)
	}))
	defer srv.Close()
	out, stdout, err := runScenario(t, fmt.Sprintf(`
target: {base_url: %q, model: "m"}
tokenizer: name: "o200k_base"
dataset: random: {input_len: 8, output_len: 2}
load: num_prompts: 3
output: {save_result: true, result_filename: "r.json"}
`, srv.URL))
	if err == nil || !strings.Contains(err.Error(), "all requests failed") {
		t.Fatalf("err = %v, want all requests failed", err)
	}
	if out == nil || out.Summary.Failed != 3 || out.ResultPath == "" {
		t.Fatalf("outcome %+v: failures must still be reported and saved", out)
	}
	if !strings.Contains(stdout, "Failed requests during benchmark run detected (capping to 10):\nError 0: ") ||
		!strings.Contains(stdout, "Failed requests:                         3         \n") {
		t.Errorf("stdout:\n%s", stdout)
	}
}

func TestRunInterruptedStillWritesResults(t *testing.T) {
	// 20 requests at 10 req/s take about 2 s. The server cancels the run as
	// soon as the first benchmark request reaches it, so the cut does not
	// depend on how fast this machine prepares the run.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.ITL = 5*time.Millisecond, time.Millisecond
	simSrv, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/completions" {
			once.Do(cancel)
		}
		simSrv.Handler().ServeHTTP(w, r)
	}))
	defer srv.Close()
	out, stdout := runInterrupted(t, ctx, srv.URL, `load: {num_prompts: 20, request_rate: 10}`)
	if !out.Interrupted || len(out.Records) == 0 || len(out.Records) == 20 {
		t.Fatalf("interrupted=%v with %d records", out.Interrupted, len(out.Records))
	}
	var res struct {
		VBench struct {
			Interrupted bool `json:"interrupted"`
		} `json:"vbench"`
	}
	if b, err := os.ReadFile(out.ResultPath); err != nil {
		t.Errorf("reading the result: %v", err)
	} else if err := json.Unmarshal(b, &res); err != nil {
		t.Errorf("reading the result: %v", err)
	} else if !res.VBench.Interrupted {
		t.Errorf("result not marked interrupted")
	}
	if !strings.Contains(stdout, "Serving Benchmark Result") {
		t.Errorf("no result block:\n%s", stdout)
	}
}

// runInterrupted runs a scenario against the server at url (random
// prompts of 24 tokens, 6 output tokens, the result saved as r.json in a
// temporary directory) with extra appended, where the server cancels ctx
// during the run, and fails the test unless the run reports the
// interruption. It returns the outcome and what the run printed.
func runInterrupted(t *testing.T, ctx context.Context, url, extra string) (*Outcome, string) {
	t.Helper()
	dir := t.TempDir()
	sc, err := scenario.LoadBytes("test.cue", []byte(`
target: {base_url: "`+url+`", model: "vbench-sim"}
tokenizer: name: "o200k_base"
dataset: random: {input_len: 24, output_len: 6}
output: {save_result: true, result_filename: "r.json", result_dir: "`+dir+`"}
`+extra+"\n"), scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	out, err := Run(ctx, sc, Env{KeepRecords: true, Stdout: &stdout, Stderr: &stdout, Getenv: func(string) string { return "" }, Now: time.Now})
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("err = %v, want an interrupted run\n%s", err, stdout.String())
	}
	return out, stdout.String()
}

func TestRunRampUp(t *testing.T) {
	out, stdout, err := runScenario(t, base+`load: ramp_up: {strategy: "linear", start_rps: 10, end_rps: 100}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"Traffic ramp-up strategy: linear.\n", "Will increase RPS from 10 to 100 RPS over the duration of the benchmark.\n"} {
		if !strings.Contains(stdout, line) {
			t.Errorf("stdout lacks %q", line)
		}
	}
	f, err := os.Open(out.ResultPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := report.DecodePython(f)
	if err != nil {
		t.Fatal(err)
	}
	obj := v.(*report.Object)
	keys := obj.Keys()
	if want := concat(header, []string{"ramp_up_strategy", "ramp_up_start_rps", "ramp_up_end_rps"}); !reflect.DeepEqual(keys[:len(want)], want) {
		t.Errorf("header keys %q", keys[:len(want)])
	}
	ev, _ := obj.Get("rps_change_events")
	events, ok := ev.([]any)
	if !ok || len(events) != 91 {
		t.Fatalf("rps_change_events = %v, want 91 events (10..100)", ev)
	}
	for i, e := range events {
		rps, _ := e.(*report.Object).Get("rps")
		if n, ok := rps.(int64); !ok || n != int64(10+i) {
			t.Errorf("event %d rps = %v (%T), want %d", i, rps, rps, 10+i)
		}
	}
}

func TestFirstWave(t *testing.T) {
	five := 5
	tests := []struct {
		name string
		load scenario.Load
		n    int
		want int
	}{
		{"concurrency limit", scenario.Load{RequestRate: scenario.Inf, MaxConcurrency: &five}, 100, 5},
		{"rate inf, no limit", scenario.Load{RequestRate: scenario.Inf}, 100, 100},
		{"rate inf, capped", scenario.Load{RequestRate: scenario.Inf}, 5000, 1024},
		{"finite rate: its first second", scenario.Load{RequestRate: 2.5}, 100, 4},
		{"ramp-up: its start rate", scenario.Load{RequestRate: scenario.Inf, RampUp: &scenario.RampUp{StartRPS: 10, EndRPS: 100}}, 100, 11},
		{"fewer requests than the wave", scenario.Load{RequestRate: 50}, 3, 3},
	}
	for _, tt := range tests {
		sc := &scenario.Scenario{Load: tt.load}
		maxConc := 0
		if tt.load.MaxConcurrency != nil {
			maxConc = *tt.load.MaxConcurrency
		}
		if got := firstWave(sc, tt.n, maxConc); got != tt.want {
			t.Errorf("%s: firstWave = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// A records file alone folds into the run's summary: the same counts,
// latency statistics and, from its run-end line, the same duration and
// rates. Cut short (the run killed), only the duration may differ.
func TestFoldRecords(t *testing.T) {
	out, _, err := runScenario(t, base+"\nmetrics: {percentile_metrics: [\"ttft\", \"tpot\", \"itl\", \"e2el\"], metric_percentiles: [50, 99]}")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.Builtin("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	f, err := FoldRecords(out.RecordsPath, countTokens(tok))
	if err != nil {
		t.Fatal(err)
	}
	got, want := f.Summary, out.Summary
	if f.Truncated || len(f.Records) != 12 || f.Scenario == nil || f.Scenario.Hash() != f.Header.ScenarioHash {
		t.Fatalf("fold: truncated %v, %d records, header %+v", f.Truncated, len(f.Records), f.Header)
	}
	if f.Duration.Seconds() != want.Duration || got.RequestThroughput != want.RequestThroughput || got.OutputThroughput != want.OutputThroughput {
		t.Errorf("fold duration %v, throughputs %v, %v; run's %v s, %v, %v", f.Duration, got.RequestThroughput, got.OutputThroughput,
			want.Duration, want.RequestThroughput, want.OutputThroughput)
	}
	if got.Completed != want.Completed || got.Failed != want.Failed || got.TotalInput != want.TotalInput ||
		got.TotalOutput != want.TotalOutput || got.MaxConcurrentRequests != want.MaxConcurrentRequests ||
		!reflect.DeepEqual(got.Metrics, want.Metrics) || !reflect.DeepEqual(got.Latencies, want.Latencies) {
		t.Errorf("folded summary differs:\n got %+v\nwant %+v", got, want)
	}
	if len(got.Metrics) != 4 {
		t.Errorf("metrics %+v", got.Metrics)
	}
	for i, r := range f.Records {
		if r.Index != i {
			t.Fatalf("record %d has index %d: not in request order", i, r.Index)
		}
	}

	// Fold resolves the run's tokenizer only when the server counted no
	// output tokens, and then counts the texts as the run would have.
	var diag bytes.Buffer
	env := Env{Stderr: &diag, Getenv: func(string) string { return "" }}
	g, err := Fold(context.Background(), out.RecordsPath, env)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g.Summary, f.Summary) || diag.Len() != 0 {
		t.Errorf("Fold differs from FoldRecords, or resolved a tokenizer (%q)", diag.String())
	}
	raw, err := os.ReadFile(out.RecordsPath)
	if err != nil {
		t.Fatal(err)
	}
	uncounted := filepath.Join(t.TempDir(), "uncounted.records.jsonl")
	if err := os.WriteFile(uncounted, bytes.ReplaceAll(raw, []byte(`"output_tokens":6`), []byte(`"output_tokens":0`)), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err = Fold(context.Background(), uncounted, env)
	if err != nil {
		t.Fatal(err)
	}
	wantOut := 0
	for _, r := range f.Records {
		wantOut += len(tok.Encode(r.GeneratedText, false))
	}
	if g.Summary.TotalOutput != wantOut || wantOut == 0 || !strings.Contains(diag.String(), "tokenizer: ") {
		t.Errorf("uncounted: total output %d, want %d; diagnostics %q", g.Summary.TotalOutput, wantOut, diag.String())
	}

	// A file cut in the middle of its last record (the run killed before
	// its end line) folds without that record.
	data, err := os.ReadFile(out.RecordsPath)
	if err != nil {
		t.Fatal(err)
	}
	end := bytes.LastIndex(data, []byte("{\"run_end\":"))
	if end < 0 {
		t.Fatal("the records file has no run-end line")
	}
	cut := filepath.Join(t.TempDir(), "cut.records.jsonl")
	if err := os.WriteFile(cut, data[:end-10], 0o644); err != nil {
		t.Fatal(err)
	}
	f, err = FoldRecords(cut, countTokens(tok))
	if err != nil {
		t.Fatal(err)
	}
	if !f.Truncated || len(f.Records) != 11 || f.Summary.Completed != 11 || f.Duration <= 0 || f.Duration.Seconds() > want.Duration {
		t.Errorf("cut file: truncated %v, %d records, completed %d, duration %v (the run's %v s)", f.Truncated, len(f.Records), f.Summary.Completed, f.Duration, want.Duration)
	}

	// Files without a header or records cannot be folded.
	noHeader := filepath.Join(t.TempDir(), "old.records.jsonl")
	if err := os.WriteFile(noHeader, []byte("{\"index\": 0}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := FoldRecords(noHeader, nil); err == nil || !strings.Contains(err.Error(), "no header line") {
		t.Errorf("no header: %v", err)
	}
	headerOnly := filepath.Join(t.TempDir(), "empty.records.jsonl")
	first, _, _ := strings.Cut(string(data), "\n")
	if err := os.WriteFile(headerOnly, []byte(first+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := FoldRecords(headerOnly, nil); err == nil || !strings.Contains(err.Error(), "no records") {
		t.Errorf("header only: %v", err)
	}
}

// eventLog is a RunObserver that logs each event's kind.
type eventLog struct{ events []string }

func (l *eventLog) Message(text string)    { l.events = append(l.events, "message") }
func (l *eventLog) Diagnostic(text string) { l.events = append(l.events, "diagnostic") }
func (l *eventLog) ReadyCheck(step report.ReadyStep, _ int) {
	l.events = append(l.events, fmt.Sprintf("ready %d", step))
}
func (l *eventLog) Warmup(n int, done bool) {
	l.events = append(l.events, fmt.Sprintf("warmup %d %v", n, done))
}
func (l *eventLog) Traffic(t report.Traffic) {
	l.events = append(l.events, fmt.Sprintf("traffic %d", t.MaxConcurrency))
}
func (l *eventLog) Result(in report.ConsoleInput) error {
	l.events = append(l.events, fmt.Sprintf("result %d", in.Summary.Completed))
	return nil
}
func (l *eventLog) Saved(path string)  { l.events = append(l.events, "saved "+filepath.Base(path)) }
func (l *eventLog) Health(text string) { l.events = append(l.events, "health") }

// A run tells its observer what it does instead of printing: with an
// observer nothing reaches stdout or stderr.
func TestRunObserver(t *testing.T) {
	// The second run writes the same result file again: overwrite.
	src := base + "load: {num_warmups: 2, ready_check_timeout_sec: 5}\noutput: {disable_tqdm: true, overwrite: true}\n"
	dir := t.TempDir()
	sc, err := scenario.LoadBytes("test.cue", []byte(src), scenario.Options{Sets: []string{`output.result_dir="` + dir + `"`}})
	if err != nil {
		t.Fatal(err)
	}
	for _, silent := range []bool{true, false} {
		var stdout, stderr bytes.Buffer
		log := &eventLog{}
		env := Env{KeepRecords: true, Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }, Now: time.Now, Observer: log}
		if silent {
			env.Observer = report.Silent{}
		}
		out, err := Run(context.Background(), sc, env)
		if err != nil {
			t.Fatal(err)
		}
		if stdout.Len() != 0 || stderr.Len() != 0 {
			t.Errorf("silent %v: stdout %q, stderr %q", silent, stdout.String(), stderr.String())
		}
		if out.Summary.Completed != 12 {
			t.Errorf("completed %d", out.Summary.Completed)
		}
		if silent {
			continue
		}
		got := strings.Join(log.events, ", ")
		if want := "ready 0, ready 2, ready 3, warmup 2 false, warmup 2 true, traffic 4, result 12, saved r.json, health"; !strings.HasSuffix(got, want) {
			t.Errorf("events\n %s\nwant them to end with\n %s", got, want)
		}
		if !strings.HasPrefix(got, "diagnostic, diagnostic") {
			t.Errorf("events %s: want the tokenizer and sampling diagnostics first", got)
		}
	}
}

// failingConsole is a silent observer whose result block cannot be
// written, as on a closed pipe.
type failingConsole struct{ report.Silent }

func (failingConsole) Result(report.ConsoleInput) error { return errors.New("write |1: broken pipe") }

// A console that fails does not cost the result file: it is written, and
// the console's error is returned after it.
func TestRunConsoleErrorKeepsResult(t *testing.T) {
	dir := t.TempDir()
	sc, err := scenario.LoadBytes("test.cue", []byte(base), scenario.Options{Sets: []string{`output.result_dir="` + dir + `"`}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Run(context.Background(), sc, Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" },
		Now: time.Now, Observer: failingConsole{}})
	if err == nil || !strings.Contains(err.Error(), "broken pipe") {
		t.Fatalf("err = %v, want the console's", err)
	}
	if out == nil || out.ResultPath == "" {
		t.Fatalf("no result written: %+v", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "r.json")); err != nil {
		t.Errorf("result file: %v", err)
	}
}

func TestRunRefusesWithoutServer(t *testing.T) {
	// Against a port nobody listens on the pre-flight refuses before any
	// work: bad input (exit 2), one line and a hint, nothing written.
	out, stdout, err := runScenario(t, `
target: {base_url: "http://127.0.0.1:1", model: "m"}
tokenizer: name: "o200k_base"
dataset: random: {input_len: 8, output_len: 2}
load: num_prompts: 3
output: {save_result: true, result_filename: "r.json"}
`)
	if !errors.Is(err, ErrInput) {
		t.Fatalf("err = %v, want one matching ErrInput", err)
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 2 || lines[0] != "no server is listening at http://127.0.0.1:1 (connect: connection refused)" || !strings.HasPrefix(lines[1], "hint: ") {
		t.Errorf("error %q, want the refused connection and a hint", err)
	}
	if out != nil || stdout != "" {
		t.Errorf("outcome %+v, stdout %q: want nothing", out, stdout)
	}
}

// A run whose fold cannot make its spill files stops before the timed
// phase (and before any profiler starts), saying where it tried.
func TestRunUnwritableTempDir(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	out, _, err := runScenario(t, base)
	if err == nil || !strings.Contains(err.Error(), "the metrics fold's spill file") || !strings.Contains(err.Error(), "TMPDIR") {
		t.Fatalf("err = %v, want the spill file's error naming TMPDIR", err)
	}
	if out != nil {
		t.Errorf("a run that did not start has an outcome: %+v", out)
	}
}
