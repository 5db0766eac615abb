package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/promscrape"
	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/sim"
	"github.com/vbench/vbench/internal/tokenizer"
)

// specCounts are the spec-decode counters of one /metrics text, summed
// over label sets by hand: a line's name before "{", its last field.
type specCounts struct {
	drafts, draftTokens, accepted float64
	perPos                        map[int]float64
}

func countByHand(t *testing.T, text string) specCounts {
	t.Helper()
	c := specCounts{perPos: map[int]float64{}}
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, _, _ := strings.Cut(line, "{")
		fields := strings.Fields(line)
		v, err := strconv.ParseFloat(fields[len(fields)-1], 64)
		if err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		switch name {
		case "vllm:spec_decode_num_drafts_total":
			c.drafts += v
		case "vllm:spec_decode_num_draft_tokens_total":
			c.draftTokens += v
		case "vllm:spec_decode_num_accepted_tokens_total":
			c.accepted += v
		case "vllm:spec_decode_num_accepted_tokens_per_pos_total":
			_, rest, _ := strings.Cut(line, `position="`)
			p, _, _ := strings.Cut(rest, `"`)
			pos, err := strconv.Atoi(p)
			if err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			c.perPos[pos] += v
		}
	}
	return c
}

func getMetrics(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRunSpecDecodeMatchesCounters runs against a simulator with
// speculative decoding whose counters are already non-zero, and checks
// that the result's spec_decode_* values equal the deltas of the
// simulator's counters computed by hand from its /metrics text before and
// after the run (rates to 1e-9), and the console block shows them.
func TestRunSpecDecodeMatchesCounters(t *testing.T) {
	tok, err := tokenizer.Builtin("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.ITL = 2*time.Millisecond, 500*time.Microsecond
	cfg.Tokenizer = SimTokenizer(tok)
	cfg.SpecDecodeTokens, cfg.SpecDecodeAcceptance = 4, 0.7
	srv, err := sim.Start(cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	// Traffic before the run: the counters do not start at 0.
	for i := range 3 {
		body := fmt.Sprintf(`{"model":"vbench-sim","prompt":"warm %d","max_tokens":%d,"ignore_eos":true}`, i, 5+i)
		resp, err := http.Post(srv.URL()+"/v1/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	before := countByHand(t, getMetrics(t, srv.URL()))
	if before.drafts == 0 {
		t.Fatal("no drafts before the run")
	}

	dir := t.TempDir()
	src := `target: {base_url: "` + srv.URL() + `", model: "vbench-sim"}
tokenizer: name: "o200k_base"
dataset: random: {input_len: 24, output_len: 20, range_ratio: 0.5}
load: {num_prompts: 16, max_concurrency: 4}
output: {save_result: true, result_filename: "r.json", result_dir: "` + dir + `"}
`
	sc, err := scenario.LoadBytes("test.cue", []byte(src), scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	out, err := Run(context.Background(), sc, Env{Stdout: &stdout, Stderr: io.Discard, Getenv: func(string) string { return "" }, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	after := countByHand(t, getMetrics(t, srv.URL()))

	dDrafts := after.drafts - before.drafts
	dDraftTokens := after.draftTokens - before.draftTokens
	dAccepted := after.accepted - before.accepted
	if dDraftTokens != 4*dDrafts || dDrafts == 0 {
		t.Fatalf("by hand: %v drafts, %v draft tokens", dDrafts, dDraftTokens)
	}
	wantRate := 100 * dAccepted / dDraftTokens
	wantLen := 1 + dAccepted/dDrafts

	f, err := os.Open(out.ResultPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := report.DecodePython(f)
	if err != nil {
		t.Fatal(err)
	}
	res := v.(*report.Object)
	num := func(key string) float64 {
		t.Helper()
		x, ok := res.Get(key)
		if !ok {
			t.Fatalf("no %s in the result", key)
		}
		switch x := x.(type) {
		case float64:
			return x
		case int:
			return float64(x)
		case int64:
			return float64(x)
		}
		t.Fatalf("%s = %T %v", key, x, x)
		return 0
	}
	if got := num("spec_decode_acceptance_rate"); math.Abs(got-wantRate) > 1e-9 {
		t.Errorf("acceptance rate %v, by hand %v", got, wantRate)
	}
	if got := num("spec_decode_acceptance_length"); math.Abs(got-wantLen) > 1e-9 {
		t.Errorf("acceptance length %v, by hand %v", got, wantLen)
	}
	for key, want := range map[string]float64{"spec_decode_num_drafts": dDrafts, "spec_decode_draft_tokens": dDraftTokens, "spec_decode_accepted_tokens": dAccepted} {
		if got := num(key); got != want {
			t.Errorf("%s = %v, by hand %v", key, got, want)
		}
	}
	perPos, _ := res.Get("spec_decode_per_position_acceptance_rates")
	rates, _ := perPos.([]any)
	if len(rates) != 4 {
		t.Fatalf("per-position rates %v", perPos)
	}
	for p := range 4 {
		want := (after.perPos[p] - before.perPos[p]) / dDrafts
		if got, _ := rates[p].(float64); math.Abs(got-want) > 1e-9 {
			t.Errorf("position %d: %v, by hand %v", p, rates[p], want)
		}
	}
	if out.SpecDecode == nil || float64(out.SpecDecode.NumDrafts) != dDrafts {
		t.Errorf("Outcome.SpecDecode = %+v", out.SpecDecode)
	}
	block := fmt.Sprintf("---------------Speculative Decoding---------------\nAcceptance rate (%%):                     %-10.2f\nAcceptance length:                       %-10.2f\nDrafts:                                  %-10d\n",
		wantRate, wantLen, int(dDrafts))
	if !strings.Contains(stdout.String(), block) {
		t.Errorf("no\n%s\nin\n%s", block, stdout.String())
	}
}

// TestRunDiffusionBlock runs against a server whose /metrics has
// diffusion counters (in front of the simulator, which serves the rest)
// that grow between the two scrapes: the diffusion block replaces the
// speculative-decoding one and the diffusion_* keys are saved, computed
// as vLLM does. A third scrape never happens.
func TestRunDiffusionBlock(t *testing.T) {
	tok, err := tokenizer.Builtin("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.ITL = time.Millisecond, 200*time.Microsecond
	cfg.Tokenizer = SimTokenizer(tok)
	cfg.SpecDecodeTokens, cfg.SpecDecodeAcceptance = 2, 0.5
	s, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	scrapes := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			s.Handler().ServeHTTP(w, r)
			return
		}
		scrapes++
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, r)
		// Before: 100 steps, 3200 positions, 50 committed; after: 40
		// more steps over 1280 positions (block 32), 64 more committed.
		steps, positions, committed := 100, 3200, 50
		if scrapes > 1 {
			steps, positions, committed = 140, 4480, 114
		}
		fmt.Fprintf(w, "%s# TYPE vllm:diffusion_num_denoising_steps counter\nvllm:diffusion_num_denoising_steps_total{engine=\"0\"} %d.0\nvllm:diffusion_num_denoising_steps_created{engine=\"0\"} 1.7e+09\n"+
			"# TYPE vllm:diffusion_num_canvas_positions counter\nvllm:diffusion_num_canvas_positions_total{engine=\"0\"} %d.0\n"+
			"# TYPE vllm:diffusion_num_committed_tokens counter\nvllm:diffusion_num_committed_tokens_total{engine=\"0\"} %d.0\n",
			rec.Body.String(), steps, positions, committed)
	}))
	defer srv.Close()

	dir := t.TempDir()
	src := `target: {base_url: "` + srv.URL + `", model: "vbench-sim"}
tokenizer: name: "o200k_base"
dataset: random: {input_len: 16, output_len: 4}
load: num_prompts: 4
output: {save_result: true, result_filename: "r.json", result_dir: "` + dir + `"}
`
	sc, err := scenario.LoadBytes("test.cue", []byte(src), scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	out, err := Run(context.Background(), sc, Env{Stdout: &stdout, Stderr: io.Discard, Getenv: func(string) string { return "" }, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	if scrapes != 2 {
		t.Errorf("%d scrapes, want 2", scrapes)
	}
	// 64 committed over 2 canvases of 32: 38 denoising steps.
	d := out.Diffusion
	if d == nil || d.CommittedTokens != 64 || d.DenoisingSteps != 38 || d.CanvasPositions != 1280 || d.StepsPerCanvas != 19 ||
		d.CommittedPerStep != 64.0/38 || d.CommittedThroughput != 64/out.Summary.Duration {
		t.Fatalf("Diffusion = %+v", d)
	}
	if out.SpecDecode == nil {
		t.Error("no spec-decode statistics: they are saved even when the console shows the diffusion block")
	}
	text := stdout.String()
	if strings.Contains(text, "Speculative Decoding") {
		t.Error("the spec-decode block is printed next to the diffusion block")
	}
	want := "----------------Diffusion Decoding----------------\nCommitted throughput (tok/s):            " + fmt.Sprintf("%-10.2f", d.CommittedThroughput) +
		"\nDenoising steps per canvas:              19.00     \nCommitted per denoising step:            1.68      \nCommitted tokens:                        64        \n" +
		"Denoising steps:                         38        \nCanvas positions evaluated:              1280      \n=================================================="
	if !strings.Contains(text, want) {
		t.Errorf("no\n%s\nin\n%s", want, text)
	}
	keys := resultKeys(t, out.ResultPath)
	i := slices.Index(keys, "spec_decode_per_position_acceptance_rates")
	if i < 0 || !slices.Equal(keys[i+1:i+7], []string{"diffusion_committed_throughput", "diffusion_steps_per_canvas",
		"diffusion_committed_per_step", "diffusion_committed_tokens", "diffusion_denoising_steps", "diffusion_canvas_positions"}) {
		t.Errorf("keys %q", keys)
	}
}

// TestServerScrapeWarnsOnce checks that a /metrics line that cannot be read
// is named once, on the diagnostics, while the rest of the exposition is
// read.
func TestServerScrapeWarnsOnce(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("# TYPE vllm:num_requests_running gauge\r\nvllm:num_requests_running 3\r\nbroken{a=\"1\" 2\r\n"))
	}))
	defer srv.Close()
	var warnings []string
	sc := &scenario.Scenario{}
	s := newServerScrape(sc, srv.URL, func(w string) { warnings = append(warnings, w) })
	defer s.close()
	for range 2 {
		snap := s.scrape(context.Background())
		if snap == nil || snap.Family("vllm:num_requests_running", promscrape.Gauge) == nil {
			t.Fatalf("snapshot %+v: the readable lines were not read", snap)
		}
	}
	want := "warning: " + srv.URL + `/metrics: 1 line(s) could not be read and were skipped (the rest was read), the first: line 3: labels: want , or } after a label: "broken{a=\"1\" 2"`
	if len(warnings) != 1 || warnings[0] != want {
		t.Errorf("warnings %q, want once %q", warnings, want)
	}
}
