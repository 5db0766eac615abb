package pipeline

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/sim"
)

// An interrupted run still writes its probes and its server samples: the
// result has the probe keys and the sampled timeline, and the records
// file the sample lines. The server interrupts the run once a probe has
// come back and two scrapes were answered, so the cut does not depend on
// the machine's speed.
func TestRunInterruptedKeepsProbesAndSamples(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.ITL = 5*time.Millisecond, time.Millisecond
	simSrv, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var scrapes, probes atomic.Int64
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/metrics":
			scrapes.Add(1)
			w.Write([]byte("vllm:num_requests_running 1\n"))
			return
		case r.URL.Path == "/v1/completions" && r.Header.Get("x-request-id") == "":
			defer probes.Add(1) // a probe (or the ready check), counted once answered
		case r.URL.Path == "/v1/completions" && probes.Load() >= 3 && scrapes.Load() >= 2:
			once.Do(cancel)
		}
		simSrv.Handler().ServeHTTP(w, r)
	}))
	defer srv.Close()
	out, stdout := runInterrupted(t, ctx, srv.URL, `load: {num_prompts: 200, request_rate: 20, probe_request_rate: 50}
metrics: scrape_interval: 0.02
output: records: true`)
	if out.Probe == nil || out.Probe.Completed < 1 || len(out.ServerSamples) < 1 {
		t.Fatalf("probe summary %+v, %d server samples; want both\n%s", out.Probe, len(out.ServerSamples), stdout)
	}
	var res struct {
		ProbeCompleted *int `json:"probe_completed"`
		VBench         struct {
			Interrupted    bool `json:"interrupted"`
			ServerTimeline struct {
				Samples []json.RawMessage `json:"samples"`
			} `json:"server_timeline"`
		} `json:"vbench"`
	}
	b, err := os.ReadFile(out.ResultPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if !res.VBench.Interrupted || res.ProbeCompleted == nil || *res.ProbeCompleted != out.Probe.Completed ||
		len(res.VBench.ServerTimeline.Samples) != len(out.ServerSamples) {
		t.Errorf("result: interrupted %v, probe_completed %v, %d samples; want true, %d, %d",
			res.VBench.Interrupted, res.ProbeCompleted, len(res.VBench.ServerTimeline.Samples), out.Probe.Completed, len(out.ServerSamples))
	}
	f, err := record.ReadFile(out.RecordsPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.ServerSamples) != len(out.ServerSamples) {
		t.Errorf("records file holds %d samples, the run took %d", len(f.ServerSamples), len(out.ServerSamples))
	}
}
