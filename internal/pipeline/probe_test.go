package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/sim"
)

// Probes run beside a closed-loop run against the simulator: vLLM's probe
// payload (prompt "Hi", one output token, no request id), at most as many
// as the rate allows, none counted in the run's requests, and their
// section and keys in the console and the result.
func TestRunProbesBesideClosedLoop(t *testing.T) {
	for _, tt := range []struct {
		backend, endpoint string
		// prompt and maxTokens read the probe's prompt and output length
		// from a payload.
		prompt    func(p map[string]any) any
		maxTokens string
	}{
		{"openai", "/v1/completions", func(p map[string]any) any { return p["prompt"] }, "max_tokens"},
		{"openai-chat", "/v1/chat/completions", func(p map[string]any) any {
			return p["messages"]
		}, "max_completion_tokens"},
	} {
		t.Run(tt.backend, func(t *testing.T) {
			var (
				mu     sync.Mutex
				probes []map[string]any
				ids    []string
				main   int
			)
			srv := probeServer(t, func(_ http.ResponseWriter, r *http.Request, body []byte) bool {
				var p map[string]any
				if err := json.Unmarshal(body, &p); err != nil {
					t.Errorf("payload %s: %v", body, err)
				}
				mu.Lock()
				defer mu.Unlock()
				if p[tt.maxTokens] == 1.0 {
					probes = append(probes, p)
					ids = append(ids, r.Header.Get("x-request-id"))
				} else {
					main++
				}
				return false
			})
			out, stdout, _, err := runProbeScenario(t, `
target: {base_url: "`+srv.URL+`", backend: "`+tt.backend+`", endpoint: "`+tt.endpoint+`", model: "vbench-sim"}
tokenizer: name: "o200k_base"
dataset: random: {input_len: 24, output_len: 20}
load: {num_prompts: 40, max_concurrency: 2, probe_request_rate: 20}
output: {save_result: true, result_filename: "r.json"}
`)
			if err != nil {
				t.Fatalf("%v\n%s", err, stdout)
			}
			s := out.Summary
			if s.Completed != 40 || s.Failed != 0 || len(out.Records) != 40 || main != 40 {
				t.Errorf("completed %d, failed %d, %d records, %d main requests at the server; want 40, 0, 40, 40",
					s.Completed, s.Failed, len(out.Records), main)
			}
			p := out.Probe
			if p == nil || p.Completed < 1 {
				t.Fatalf("probe summary %+v, want at least one completed probe", p)
			}
			mu.Lock()
			defer mu.Unlock()
			if n := p.Completed + p.Failed; n != len(probes) {
				t.Errorf("%d probes summarised, %d reached the server", n, len(probes))
			}
			// One at a time with a 50 ms pause after each: at most one per
			// 50 ms of the run, plus the first.
			if limit := int(math.Floor(s.Duration*20)) + 1; len(probes) > limit {
				t.Errorf("%d probes in %.3f s at 20 req/s, want at most %d", len(probes), s.Duration, limit)
			}
			wantPrompt := any("Hi")
			if tt.backend == "openai-chat" {
				wantPrompt = []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "Hi"}}}}
			}
			for i, pl := range probes {
				if got := tt.prompt(pl); !reflect.DeepEqual(got, wantPrompt) || pl["model"] != "vbench-sim" || pl["ignore_eos"] != true {
					t.Errorf("probe %d payload %v, want prompt %v, model vbench-sim, ignore_eos", i, pl, wantPrompt)
				}
				if ids[i] != "" {
					t.Errorf("probe %d sent x-request-id %q, want none", i, ids[i])
				}
			}
			console := stdout
			for _, line := range []string{"Probe request rate: 20.0 req/s\n", "------------------Probe Requests------------------\n",
				"Probe requests completed:                " + ljust(strconv.Itoa(p.Completed), 10) + "\n"} {
				if !strings.Contains(console, line) {
					t.Errorf("console lacks %q:\n%s", line, console)
				}
			}
			keys := resultKeys(t, out.ResultPath)
			probeKeys := []string{"probe_completed", "probe_failed", "probe_median_e2el_ms", "probe_p99_e2el_ms", "probe_max_e2el_ms"}
			at := slices.Index(keys, "rtfx") + 1
			if at == 0 || at+len(probeKeys) > len(keys) || !slices.Equal(keys[at:at+len(probeKeys)], probeKeys) {
				t.Errorf("result keys %q, want %q after rtfx", keys, probeKeys)
			}
		})
	}
}

func ljust(s string, n int) string { return s + strings.Repeat(" ", max(0, n-len(s))) }

// Without load.probe_request_rate no probe is prepared, sent or reported.
func TestRunWithoutProbes(t *testing.T) {
	out, stdout, err := runScenario(t, base)
	if err != nil {
		t.Fatal(err)
	}
	if out.Probe != nil || strings.Contains(stdout, "Probe") {
		t.Errorf("probe summary %+v; stdout:\n%s", out.Probe, stdout)
	}
	if keys := resultKeys(t, out.ResultPath); slices.ContainsFunc(keys, func(k string) bool { return strings.HasPrefix(k, "probe_") }) {
		t.Errorf("result keys %q hold probe keys", keys)
	}
}

// The probe is request 0 with vLLM's replacements: the run's model and
// request 0's extra body are kept, everything else is the "Hi" prompt.
func TestProbeRequest(t *testing.T) {
	extra := map[string]any{"tools": []any{}}
	first := dataset.Request{Prompt: "long prompt", Prompts: []string{"a"}, PromptTokens: []int{1, 2},
		Messages: []dataset.Message{{Role: dataset.RoleUser}}, PromptLen: 300, OutputLen: 64, ID: "bench-0",
		Conversation: &dataset.Conversation{}, Turn: 2, Model: "base", ExtraBody: extra, Time: time.Second, Timed: true}
	got := probeRequest(first)
	want := dataset.Request{Prompt: "Hi", PromptLen: 1, OutputLen: 1, Model: "base", ExtraBody: extra}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("probeRequest = %+v, want %+v", got, want)
	}
}

func TestProbeConns(t *testing.T) {
	for _, tt := range []struct {
		wave, maxConc int
		probes        bool
		want          int
	}{
		{8, 0, false, 8},
		{8, 0, true, 9},
		{4, 4, true, 4}, // the pool is full: the probe shares it
		{3, 4, true, 4},
	} {
		if got := probeConns(tt.wave, tt.maxConc, tt.probes); got != tt.want {
			t.Errorf("probeConns(%d, %d, %v) = %d, want %d", tt.wave, tt.maxConc, tt.probes, got, tt.want)
		}
	}
}

// When every probe fails, vLLM shows no probe section and saves no probe
// keys; vbench says why on stderr, and the run itself is unaffected.
func TestRunProbesAllFailed(t *testing.T) {
	srv := probeServer(t, func(w http.ResponseWriter, _ *http.Request, body []byte) bool {
		var p struct {
			Prompt any `json:"prompt"`
		}
		if json.Unmarshal(body, &p) == nil && p.Prompt == "Hi" {
			http.Error(w, "no probes here", http.StatusServiceUnavailable)
			return true
		}
		return false
	})
	out, stdout, stderr, err := runProbeScenario(t, `
target: {base_url: "`+srv.URL+`", model: "vbench-sim"}
tokenizer: name: "o200k_base"
dataset: random: {input_len: 24, output_len: 10}
load: {num_prompts: 10, max_concurrency: 2, probe_request_rate: 100}
output: {save_result: true, result_filename: "r.json"}
`)
	if err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if out.Summary.Completed != 10 || out.Summary.Failed != 0 || out.Probe != nil {
		t.Errorf("completed %d, failed %d, probe summary %+v; want 10, 0, nil", out.Summary.Completed, out.Summary.Failed, out.Probe)
	}
	if strings.Contains(stdout, "Probe Requests") {
		t.Errorf("a probe section without a successful probe:\n%s", stdout)
	}
	if !strings.Contains(stderr, "probe requests failed, so there are no probe statistics (first error: ") ||
		!strings.Contains(stderr, "Service Unavailable") {
		t.Errorf("stderr lacks the all-probes-failed warning:\n%s", stderr)
	}
	if keys := resultKeys(t, out.ResultPath); slices.ContainsFunc(keys, func(k string) bool { return strings.HasPrefix(k, "probe_") }) {
		t.Errorf("result keys %q hold probe keys", keys)
	}
}

// probeServer serves the simulator (TTFT 5 ms, ITL 2 ms) behind a handler
// that first shows hook each generation request and its body; hook
// answers the request itself by returning true.
func probeServer(t *testing.T, hook func(w http.ResponseWriter, r *http.Request, body []byte) bool) *httptest.Server {
	t.Helper()
	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.ITL = 5*time.Millisecond, 2*time.Millisecond
	simSrv, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "completions") {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if hook(w, r, body) {
				return
			}
		}
		simSrv.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// runProbeScenario runs the scenario src with its result in a temporary
// directory, and returns its stdout and stderr.
func runProbeScenario(t *testing.T, src string) (*Outcome, string, string, error) {
	t.Helper()
	sc, err := scenario.LoadBytes("probe.cue", []byte(src), scenario.Options{
		Sets: []string{`output.result_dir="` + t.TempDir() + `"`},
	})
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	out, err := Run(context.Background(), sc, Env{KeepRecords: true, Stdout: &stdout, Stderr: &stderr,
		Getenv: func(string) string { return "" }, Now: time.Now})
	return out, stdout.String(), stderr.String(), err
}
