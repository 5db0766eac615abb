package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/metrics"
	"github.com/vbench/vbench/internal/promscrape"
	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/sim"
)

func TestServerTimelineReport(t *testing.T) {
	samples := []promscrape.ServerSample{
		{At: 500 * time.Millisecond, KVCacheUsage: 0.25, Running: 3, Waiting: -1},
		{At: 1000 * time.Millisecond, KVCacheUsage: 0.5, Running: 5, Waiting: -1},
	}
	if v := serverTimelineJSON(0, samples); v != nil {
		t.Errorf("sampling off gives %v", v)
	}
	for _, tt := range []struct {
		name     string
		samples  []promscrape.ServerSample
		jsonText string
		line     string
	}{
		{"no samples", nil, `{"interval_s": 0.5, "samples": []}`, ""},
		{"two samples, no waiting gauge", samples,
			`{"interval_s": 0.5, "samples": [{"t_s": 0.5, "kv_cache_usage": 0.25, "running": 3.0, "waiting": -1.0}, ` +
				`{"t_s": 1.0, "kv_cache_usage": 0.5, "running": 5.0, "waiting": -1.0}], ` +
				`"kv_cache_usage": {"samples": 2, "max": 0.5, "mean": 0.375}, "running": {"samples": 2, "max": 5.0, "mean": 4.0}}`,
			"Server gauges: 2 samples: KV cache usage max 50.0 % (mean 37.5 %), running max 5 (mean 4.0)\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := report.MarshalPython(serverTimelineJSON(500*time.Millisecond, tt.samples))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.jsonText {
				t.Errorf("JSON\n got %s\nwant %s", b, tt.jsonText)
			}
			if got := serverSamplesLine(tt.samples); got != tt.line {
				t.Errorf("line %q, want %q", got, tt.line)
			}
		})
	}
	// The gateable summaries are where the defs say.
	for key, path := range map[string]string{
		metrics.KeyServerKVCacheUsageMax: "kv_cache_usage.max", metrics.KeyServerKVCacheUsageMean: "kv_cache_usage.mean",
		metrics.KeyServerRunningMax: "running.max", metrics.KeyServerRunningMean: "running.mean",
		metrics.KeyServerWaitingMax: "waiting.max", metrics.KeyServerWaitingMean: "waiting.mean",
	} {
		d := metrics.MustLookup(key)
		if got := strings.Join(d.Path, "."); got != "vbench.server_timeline."+path || d.Source != metrics.SourceServerSamples {
			t.Errorf("%s: path %s, source %v", key, got, d.Source)
		}
	}
	// A records-file sample that leaves a gauge out has it absent.
	got := decodeServerSamples([]json.RawMessage{[]byte(`{"at_ns": 7, "running": 2}`), []byte(`[1]`)})
	if len(got) != 1 || got[0] != (promscrape.ServerSample{At: 7, KVCacheUsage: -1, Running: 2, Waiting: -1}) {
		t.Errorf("decoded %+v", got)
	}
}

// gaugeServer is the simulator behind a front that serves /metrics itself:
// its running gauge is the number of completions requests in flight. With
// gate, each completions request waits, in flight, until two scrapes have
// seen it, so that a run that samples has a sample with running > 0
// however slow the machine is (even if it gives up on one slow scrape).
// It records the headers of every scrape.
type gaugeServer struct {
	*httptest.Server
	inflight atomic.Int64
	scrapes  atomic.Int64
	seen     chan struct{} // closed by the second scrape with a request in flight
	busy     atomic.Int64  // scrapes that saw a request in flight
	once     sync.Once
	mu       sync.Mutex
	headers  []http.Header
}

func newGaugeServer(t *testing.T, gate bool) *gaugeServer {
	t.Helper()
	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.ITL = 2*time.Millisecond, time.Millisecond
	simSrv, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	g := &gaugeServer{seen: make(chan struct{})}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/metrics":
			g.scrapes.Add(1)
			g.mu.Lock()
			g.headers = append(g.headers, r.Header.Clone())
			g.mu.Unlock()
			n := g.inflight.Load()
			fmt.Fprintf(w, "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine=\"0\",model_name=\"m\"} %d.0\n", n)
			fmt.Fprint(w, "vllm:num_requests_running{engine=\"1\",model_name=\"m\"} 0.0\n# TYPE vllm:kv_cache_usage_perc gauge\nvllm:kv_cache_usage_perc{engine=\"0\"} 0.5\n")
			if n > 0 && g.busy.Add(1) >= 2 {
				g.once.Do(func() { close(g.seen) })
			}
		case "/v1/completions":
			g.inflight.Add(1)
			defer g.inflight.Add(-1)
			if gate {
				select {
				case <-g.seen:
				case <-r.Context().Done():
					return
				}
			}
			simSrv.Handler().ServeHTTP(w, r)
		default:
			simSrv.Handler().ServeHTTP(w, r)
		}
	}))
	t.Cleanup(g.Close)
	return g
}

// runAgainst runs src against g, in argv mode when argv is set; timeline
// sets output.plot_timeline (in Go: files may not set it yet).
func runAgainst(t *testing.T, g *gaugeServer, src string, argv *ArgvMode, timeline bool) *Outcome {
	t.Helper()
	dir := t.TempDir()
	sc, err := scenario.LoadBytes("test.cue", []byte(`
target: {base_url: "`+g.URL+`", model: "vbench-sim", headers: {"X-Secret": "s3cret"}}
tokenizer: name: "o200k_base"
dataset: random: {input_len: 8, output_len: 4}
load: {num_prompts: 4, max_concurrency: 2}
output: {save_result: true, result_filename: "r.json", result_dir: "`+dir+`", disable_tqdm: true}
`+src), scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc.Output.PlotTimeline = timeline
	var stdout bytes.Buffer
	out, err := Run(context.Background(), sc, Env{Stdout: &stdout, Stderr: &stdout, Argv: argv, Now: time.Now,
		Getenv: func(k string) string {
			if k == "OPENAI_API_KEY" {
				return "sk-key"
			}
			return ""
		}})
	if err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	return out
}

func TestRunSamplesServerGauges(t *testing.T) {
	g := newGaugeServer(t, true)
	out := runAgainst(t, g, "metrics: scrape_interval: 0.2\n", nil, false)
	if len(out.ServerSamples) == 0 {
		t.Fatal("no samples")
	}
	busy := false
	for i, s := range out.ServerSamples {
		busy = busy || s.Running > 0
		if s.KVCacheUsage != 0.5 || s.Waiting != -1 || s.At < time.Duration(i+1)*200*time.Millisecond {
			t.Errorf("sample %d = %+v", i, s)
		}
	}
	if !busy {
		t.Errorf("no sample saw a running request: %+v", out.ServerSamples)
	}
	g.mu.Lock()
	for _, h := range g.headers {
		if h.Get("Authorization") != "" || h.Get("X-Secret") != "" {
			t.Errorf("a scrape sent the benchmark's headers: %v", h)
		}
	}
	g.mu.Unlock()
	// The records file has the same samples, and the result their summary.
	f, err := record.ReadFile(out.RecordsPath)
	if err != nil {
		t.Fatal(err)
	}
	if got := decodeServerSamples(f.ServerSamples); len(got) != len(out.ServerSamples) || got[0] != out.ServerSamples[0] || len(f.Records) != 4 {
		t.Errorf("records file: %d records, samples %+v, want %+v", len(f.Records), got, out.ServerSamples)
	}
	res, err := os.ReadFile(out.ResultPath)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(`"server_timeline": {"interval_s": 0.2, "samples": [{"t_s": %s`, fmt.Sprint(out.ServerSamples[0].At.Seconds())); !strings.Contains(string(res), want) {
		t.Errorf("result has no %s:\n%s", want, res)
	}
	if !strings.Contains(string(res), `"kv_cache_usage": {"samples": `) {
		t.Errorf("result has no KV summary:\n%s", res)
	}
}

// vbench serve samples only with --plot-timeline, whose timeline shows the
// gauges: otherwise it scrapes before and after the run, as vLLM does.
func TestArgvModeSamplesOnlyForTheTimeline(t *testing.T) {
	g := newGaugeServer(t, false)
	out := runAgainst(t, g, "", &ArgvMode{Extras: true}, false)
	if out.ServerSamples != nil || g.scrapes.Load() != 2 {
		t.Errorf("argv mode sampled: %d scrapes, samples %+v", g.scrapes.Load(), out.ServerSamples)
	}
	if res, err := os.ReadFile(out.ResultPath); err != nil || strings.Contains(string(res), "server_timeline") {
		t.Errorf("result %s, %v", res, err)
	}

	g = newGaugeServer(t, true)
	out = runAgainst(t, g, "", &ArgvMode{}, true)
	if len(out.ServerSamples) == 0 {
		t.Fatal("--plot-timeline took no samples")
	}
	// Without --vbench-extras the result has vLLM's keys only.
	if res, err := os.ReadFile(out.ResultPath); err != nil || strings.Contains(string(res), "server_timeline") || strings.Contains(string(res), `"vbench"`) {
		t.Errorf("result %s, %v", res, err)
	}
}
