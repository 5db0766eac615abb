package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/vbench/vbench/internal/sim"
)

// captured is one request a captureServer saw.
type captured struct {
	path, id string
	body     map[string]any
}

// captureServer is the simulator behind a handler that records every
// request (path, X-Request-Id, JSON body) before answering it.
type captureServer struct {
	mu   sync.Mutex
	reqs []captured
	sim  http.Handler
}

func newCaptureServer(t *testing.T) *captureServer {
	t.Helper()
	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.ITL = 0, 0
	s, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &captureServer{sim: s.Handler()}
}

func (c *captureServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(b, &body)
	c.mu.Lock()
	c.reqs = append(c.reqs, captured{path: r.URL.Path, id: r.Header.Get("X-Request-Id"), body: body})
	c.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(b))
	c.sim.ServeHTTP(w, r)
}

// completions returns the completion requests seen, split into those with
// a request id (the timed run's) and those without (ready check, warmups).
func (c *captureServer) completions() (timed, untimed []captured) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.reqs {
		if r.path != "/v1/completions" {
			continue
		}
		if r.id != "" {
			timed = append(timed, r)
		} else {
			untimed = append(untimed, r)
		}
	}
	return timed, untimed
}

// TestScenarioFieldEffects pins scenario fields whose effect no other test
// showed: each changes what reaches the server.
func TestScenarioFieldEffects(t *testing.T) {
	const base = `tokenizer: name: "o200k_base"
dataset: random: {input_len: 8, output_len: 2}
load: num_prompts: 3
target: model: "vbench-sim"
`
	t.Run("target.host and target.port", func(t *testing.T) {
		cs := newCaptureServer(t)
		srv := httptest.NewServer(cs)
		defer srv.Close()
		u, _ := url.Parse(srv.URL)
		host, port, _ := strings.Cut(u.Host, ":")
		if _, _, err := runScenario(t, base+fmt.Sprintf("target: {host: %q, port: %s}\n", host, port)); err != nil {
			t.Fatal(err)
		}
		if timed, _ := cs.completions(); len(timed) != 3 {
			t.Errorf("%d requests reached http://host:port, want 3", len(timed))
		}
	})
	t.Run("sampling penalties and min_p", func(t *testing.T) {
		cs := newCaptureServer(t)
		srv := httptest.NewServer(cs)
		defer srv.Close()
		src := base + fmt.Sprintf("target: base_url: %q\nsampling: {min_p: 0.05, frequency_penalty: 0.5, presence_penalty: -0.25}\n", srv.URL)
		if _, _, err := runScenario(t, src); err != nil {
			t.Fatal(err)
		}
		timed, _ := cs.completions()
		if len(timed) == 0 {
			t.Fatal("no request")
		}
		for _, r := range timed {
			if r.body["min_p"] != 0.05 || r.body["frequency_penalty"] != 0.5 || r.body["presence_penalty"] != -0.25 {
				t.Fatalf("payload %v lacks the sampling fields", r.body)
			}
		}
	})
	t.Run("load.num_warmups and load.ready_check_timeout_sec", func(t *testing.T) {
		for _, tt := range []struct {
			load    string
			untimed int
		}{
			{"load: {num_warmups: 0, ready_check_timeout_sec: 0}\n", 0},
			{"load: {num_warmups: 2, ready_check_timeout_sec: 0}\n", 2},
			{"load: {num_warmups: 0, ready_check_timeout_sec: 10}\n", 1},
			{"load: {num_warmups: 2, ready_check_timeout_sec: 10}\n", 3},
		} {
			cs := newCaptureServer(t)
			srv := httptest.NewServer(cs)
			if _, _, err := runScenario(t, base+fmt.Sprintf("target: base_url: %q\n", srv.URL)+tt.load); err != nil {
				t.Fatal(err)
			}
			srv.Close()
			if _, untimed := cs.completions(); len(untimed) != tt.untimed {
				t.Errorf("%s: %d requests before the run, want %d", strings.TrimSpace(tt.load), len(untimed), tt.untimed)
			}
		}
	})
	t.Run("target.insecure", func(t *testing.T) {
		cs := newCaptureServer(t)
		srv := httptest.NewTLSServer(cs) // a certificate no root trusts
		defer srv.Close()
		src := base + fmt.Sprintf("target: base_url: %q\n", srv.URL)
		if out, _, err := runScenario(t, src); err == nil || out == nil || out.Summary.Failed != 3 {
			t.Errorf("an untrusted certificate: err %v, want every request failed", err)
		}
		if out, _, err := runScenario(t, src+"target: insecure: true\n"); err != nil || out.Summary.Completed != 3 {
			t.Errorf("insecure: %v", err)
		}
	})
	t.Run("target.simulator.model", func(t *testing.T) {
		out, _, err := runScenario(t, `tokenizer: name: "o200k_base"
dataset: random: {input_len: 8, output_len: 2}
load: num_prompts: 2
target: simulator: {ttft_ms: 1, itl_ms: 0, model: "sim-model-x"}
output: save_result: true
`)
		if err != nil {
			t.Fatal(err)
		}
		if out.Summary.Completed != 2 {
			t.Fatalf("completed %d", out.Summary.Completed)
		}
		var res struct {
			ModelID string `json:"model_id"`
		}
		if b, err := os.ReadFile(out.ResultPath); err != nil || json.Unmarshal(b, &res) != nil || res.ModelID != "sim-model-x" {
			t.Errorf("result model_id %q (%v), want the simulator's model", res.ModelID, err)
		}
	})
}
